/* tilecam pages: an API answer read as JSON, an error answer thrown as an Error that
 * carries the service's message, code, HTTP status and Retry-After (seconds). Shared by
 * the phone page (app.js) and the score-sheet page (sheet.js); no build step. */
"use strict";

/* What an answer without the service's JSON (a proxy's or gateway's page) means. */
const PLAIN_STATUS = {
  408: "the server gave up waiting for the request",
  413: "the request is too large for the server",
  429: "too many requests just now",
  500: "the server failed",
  502: "the server is unavailable just now: a gateway could not reach it",
  503: "the server is unavailable just now",
  504: "the server did not answer in time (gateway timeout)",
};

/** Retry-After in whole seconds (it may be a number of seconds or an HTTP date); 0 when
 * absent or unreadable. */
function retryAfterSeconds(response) {
  const value = response.headers.get("Retry-After");
  if (!value) return 0;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, Math.ceil(n));
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

async function readAnswer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    const status = response.status;
    const error = new Error(response.ok
      ? `the server's answer could not be read (HTTP ${status})`
      : `${PLAIN_STATUS[status] || "the server answered with an error"} (HTTP ${status})`);
    error.code = "not_json";
    error.status = status;
    error.retryAfter = retryAfterSeconds(response);
    throw error;
  }
  if (!response.ok) {
    const e = (body && body.error) || {};
    const error = new Error(e.message || `HTTP ${response.status}`);
    error.code = e.code || "error";
    error.status = response.status;
    error.retryAfter = retryAfterSeconds(response);
    throw error;
  }
  return body;
}
