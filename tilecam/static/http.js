/* tilecam pages: an API answer read as JSON, an error answer thrown as an Error that
 * carries the service's message, code, HTTP status and Retry-After (seconds); and the
 * Chinese in a text marked as such (lang="zh-Hans"), so that a screen reader reads it with
 * a Chinese voice. Shared by the phone page (app.js) and the score-sheet page (sheet.js);
 * no build step. */
"use strict";

/* A run of Chinese: Han characters and CJK punctuation, with the spaces, slashes and
 * middle dots between two of them ("空吃/空碰/空杠", "杠上开花 / 抢杠"). */
const HAN = "[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60]";
const HAN_RUN = new RegExp(`${HAN}+(?:[ /·]+${HAN}+)*`, "g");

/** ``text`` as nodes: its Chinese runs in ``<span lang="zh-Hans">``, the rest as text
 * (the page's language, English). A text without Chinese is one text node. */
function langRuns(text) {
  const s = String(text);
  const out = [];
  let at = 0;
  for (const m of s.matchAll(HAN_RUN)) {
    if (m.index > at) out.push(document.createTextNode(s.slice(at, m.index)));
    const span = document.createElement("span");
    span.lang = "zh-Hans";
    span.textContent = m[0];
    out.push(span);
    at = m.index + m[0].length;
  }
  if (at < s.length || !out.length) out.push(document.createTextNode(s.slice(at)));
  return out;
}

/** Set ``node``'s text, its Chinese marked (see :func:`langRuns`). */
function setText(node, text) {
  node.replaceChildren(...langRuns(text));
}

/* Elements whose children are plain text only (an <option>'s label, SVG's <text>). */
const TEXT_ONLY = new Set(["OPTION", "TITLE", "TEXTAREA", "SCRIPT", "STYLE"]);

/** A child for ``el()`` of either page: a node as it is, a string with its Chinese marked
 * (as plain text inside an element that takes only text, or an SVG element). */
function childNodes(parent, child) {
  if (child instanceof Node) return [child];
  if (TEXT_ONLY.has(parent.tagName) || parent.namespaceURI !== "http://www.w3.org/1999/xhtml") {
    return [String(child)];
  }
  return langRuns(child);
}

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

/* The longest wait the pages keep, in seconds (an hour): a longer Retry-After (or a
 * date further off) is waited for an hour, then the page reads or offers the photo again;
 * a timer of ~25 days or more would fire at once (setTimeout's 32-bit milliseconds). */
const RETRY_AFTER_MAX_S = 3600;

/** Retry-After in whole seconds, 0 when absent or unreadable, at most RETRY_AFTER_MAX_S.
 * RFC 9110 §10.2.3 allows two forms: a whole number of seconds (digits only: "1e3",
 * "0x10" and "-5" are not read as numbers), or an HTTP date, counted from the answer's
 * own Date header when it has one (the server's clock: a phone's clock may be minutes or
 * hours off), else from the phone's clock. */
function retryAfterSeconds(response) {
  const value = (response.headers.get("Retry-After") || "").trim();
  let seconds = 0;
  if (/^\d+$/.test(value)) {
    seconds = Number(value);
  } else if (/[a-z]/i.test(value)) { // a date names its weekday or month
    const at = Date.parse(value);
    const said = Date.parse(response.headers.get("Date") || "");
    const from = Number.isNaN(said) ? Date.now() : said;
    if (!Number.isNaN(at)) seconds = Math.ceil((at - from) / 1000);
  }
  return Math.min(RETRY_AFTER_MAX_S, Math.max(0, seconds));
}

/** A wait of ``seconds`` in words: "45 s" under two minutes, whole minutes (rounded up)
 * after, "3 min". */
function waitText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`;
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
