/* tilecam pages: an API answer read as JSON, an error answer thrown as an Error that
 * carries the service's message, code, HTTP status and Retry-After (seconds). Shared by
 * the phone page (app.js) and the score-sheet page (sheet.js); no build step. */
"use strict";

async function readAnswer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) {
    const e = (body && body.error) || {};
    const error = new Error(e.message || `HTTP ${response.status}`);
    error.code = e.code || "error";
    error.status = response.status;
    error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    throw error;
  }
  return body;
}
