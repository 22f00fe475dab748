/* tilecam score-sheet page: a table's standings, next hand, hands and the referee's
 * rulings, read with the table's key (or the referee's) from GET /v1/tables/{id}/sheet
 * and read again every few seconds. Plain browser JavaScript, no build step; read-only. */
"use strict";

const REFRESH_MS = 5000; // pause between the end of one read and the next (page visible)
const TIMEOUT_MS = 15000; // a read not answered by then is given up, and said so
const WIND_ZH = { E: "东", S: "南", W: "西", N: "北" };
const OUTCOME = {
  win: "win", draw: "drawn", pending: "pending", void: "void", false_claim: "false claim",
};
const KIND_ZH = {
  wrong_win: "错和", false_win: "诈和", deduction: "罚分", payment: "包赔", bar: "停和",
  warning: "警告", disqualification: "停赛", empty_claim: "空吃/空碰/空杠",
  early_draw: "摸牌", slow_pung: "碰牌",
};
const KIND_ZH_RULES = { xiamen: { false_win: "诈胡" } }; // the rules' own word, where it differs
/* what a later revision did to the hand (its `action`; a void or false-claim ruling
 * shows in the hand's outcome) */
const ACTION = { correct: "corrected by the referee", reseat: "scored again at its new place",
  review: "held by the camera for a referee" };
const MAX_TABLE = 2147483647; // the largest table number the service takes

const $ = (id) => document.getElementById(id);
const state = {
  table: null, key: null, timer: null, seq: 0, etag: null, sheet: null,
  refreshMs: REFRESH_MS,
  reading: null, // the reads' state last announced: "ok", "failed" or null (none yet)
  refusedSaid: "", // the settings_refused message already announced for this table
};
const SHEET_CARDS = ["standings-card", "next-card", "hands-card", "penalties-card"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(...childNodes(node, c)); // http.js
  }
  return node;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function unit(rules, n) {
  // as the phone page writes a total: MCR counts fan (番), which takes no plural ("21
  // fan"); Xiamen and Zhenjiang count chips, their settlement's unit ("1 chip", "3 chips")
  if (rules === "mcr") return `${n} fan`;
  return `${n} chip${n === 1 ? "" : "s"}`;
}

/* A hand's fans — those of the score stored with it, which the sheet gives with each hand
 * (`fans`) — on one line, as the phone page lists a score's: the Chinese name, the
 * English one and the value ("value×count" for a fan counted more than once). */
function fansLine(fans) {
  return (fans || []).map((f) =>
    `${f.zh} ${f.en} ${f.count > 1 ? `${f.value}×${f.count}` : f.value}`).join(" · ");
}

/* ------------------------------------------------------------------ HTTP */
async function api(path) {
  let response;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  const headers = { Authorization: `Bearer ${state.key}` };
  if (state.etag) headers["If-None-Match"] = state.etag;
  try {
    response = await fetch(path, { headers, cache: "no-store", signal: abort.signal });
  } catch (err) {
    if (!abort.signal.aborted) console.warn(`${path}: ${err.message}`); // the browser's words
    throw new Error(abort.signal.aborted
      ? `the server did not answer in ${TIMEOUT_MS / 1000} s`
      : "cannot reach the server: check the connection");
  } finally {
    clearTimeout(timer);
  }
  if (response.status === 304) return null; // the sheet as last read
  const body = await readAnswer(response); // http.js
  state.etag = response.headers.get("ETag");
  return body;
}

/* ------------------------------------------------------------------ address */
function fromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const table = (params.get("table") || "").trim();
  const key = (params.get("key") || "").trim();
  return table || key ? { table, key } : null;
}

function validTable(table) {
  return /^[1-9][0-9]{0,9}$/.test(table) && Number(table) <= MAX_TABLE;
}

function toAddress(table, key) {
  const params = new URLSearchParams({ table, key });
  history.replaceState(null, "", `${location.pathname}#${params}`);
}

/* ------------------------------------------------------------------ rendering */
function th(text, attrs = {}) {
  return el("th", { scope: "col", ...attrs }, text);
}

/* A table's closings, read from its close_reason as tilecam.tables.closings keeps them:
 * while closed, the close that stands (its first line, with who closed it); and, once a
 * referee reopened it, the record of earlier closes and reopenings, a line each,
 * "closed <time>: <reason> (by …)" or "reopened <time>: …", oldest first. */
const CLOSING = /^(closed|reopened) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)): ([\s\S]*)$/;

function closingsOf(table) {
  const text = (table && table.close_reason) || "";
  if (!text) return { current: null, record: [] };
  const lines = text.split("\n");
  const closed = Boolean(table.closed_at);
  let first = 0;
  if (closed) {
    first = lines.findIndex((line, i) => i > 0 && CLOSING.test(line));
    if (first < 0) first = lines.length;
  }
  const record = lines.slice(first).map((line) => {
    const m = CLOSING.exec(line);
    return m ? { action: m[1], at: m[2], reason: m[3] } : { action: "", at: null, reason: line };
  });
  return { current: closed ? lines.slice(0, first).join(" ") : null, record };
}

function when(at) {
  const time = new Date(at);
  return Number.isNaN(time.getTime()) ? at : time.toLocaleString();
}

/* The record of a table closed and reopened, on one line: every close and reopening
 * before the close that stands (if any), with when, why and by whom. */
function renderClosings(table) {
  const { current, record } = closingsOf(table);
  const shown = record.length > 0;
  $("closings").hidden = !shown;
  if (!shown) {
    $("closings").textContent = "";
    return;
  }
  const entries = record.map((c) => (c.at ? `${c.action} ${when(c.at)}: ${c.reason}` : c.reason));
  const head = current === null ? "Closed and reopened by the referee" : "Before this close";
  setText($("closings"), `${head}: ${entries.join("; ")}.`);
}

function renderStandings(st, table) {
  const rows = [el("tr", {}, th("#"), th("Player"), th("Total", { class: "v" }),
    th("Hands", { class: "v" }), th("Penal\u00adties", { class: "v", title: "penalties" }))];
  for (const p of st.players) {
    const marks = [];
    if (p.disqualified) marks.push("停赛 disqualified");
    if (p.bars) marks.push(`停和 ×${p.bars}`);
    if (p.warnings) marks.push(`警告 ×${p.warnings}`);
    if (p.money) marks.push(`money ${signed(p.money)}`);
    rows.push(el("tr", { "data-player": p.player },
      el("td", {}, p.rank === null ? "–" : String(p.rank)),
      el("td", { class: "player" }, p.player,
        marks.length ? el("small", {}, marks.join(" · ")) : null),
      el("td", { class: "v" }, signed(p.total)),
      el("td", { class: "v" }, signed(p.hand_points)),
      el("td", { class: "v" }, signed(p.penalty_points))));
  }
  $("standings").replaceChildren(...rows);
  const parts = [`${st.hands_recorded} hand(s) recorded, ${st.hands_settled} settled`];
  if (st.hands_pending.length) parts.push(`pending for the referee: ${st.hands_pending.join(", ")}`);
  if (st.false_claims.length) parts.push(`false claims: ${st.false_claims.join(", ")}`);
  if (st.hands_void.length) parts.push(`void: ${st.hands_void.join(", ")}`);
  // a withdrawn table did not end its session, and a closed one ended it early: each
  // is said as such (both read "the session is over" before)
  if (st.withdrawn) parts.push("withdrawn: left out of the event's standings");
  if (st.closed) parts.push("closed by the referee");
  else if (closingsOf(table).record.length) parts.push("reopened by the referee");
  if (!st.closed && st.complete) parts.push("the session is over");
  $("sheet-state").textContent = parts.join("; ") + ".";
}

/* What the next hand's place rests on: the first hand held pending where its winner
 * decides who deals next (`assumed_after`, Xiamen), or, under other rules, any hand held
 * pending (a false-claim ruling, for one, is played on at the same place). */
function assumption(next, sheet) {
  const pending = (sheet && sheet.standings.hands_pending) || [];
  const hands = (sheet && sheet.hands) || [];
  if (next.assumed_after) {
    const n = next.assumed_after;
    const held = hands.filter((h) => h.number === n).pop();
    const later = pending.filter((m) => m > n);
    let why;
    if (held && held.outcome === "pending" && held.winner) {
      why = `Placed as if hand ${n}'s win by ${held.winner.player} (held pending) does not `
        + "stand: the same dealer deals again, with the same streak";
    } else if (held && held.outcome === "pending") {
      why = `Placed as if hand ${n}'s deal passed (its winner is not known yet)`;
    } else {
      why = `Placed on an assumption about hand ${n} (pending)`;
    }
    const also = later.length ? ` (and hand${later.length > 1 ? "s" : ""} ${later.join(", ")},`
      + " also pending)" : "";
    return `${why}. It may move when the referee settles hand ${n}${also}.`;
  }
  if (pending.length) {
    const s = pending.length > 1 ? "s" : "";
    return `Hand${s} ${pending.join(", ")} ${pending.length > 1 ? "are" : "is"} held pending `
      + "for the referee: this hand's number, dealer and seats may move when the referee "
      + `settles ${pending.length > 1 ? "them" : "it"} (a claim ruled false is played on at `
      + "its place).";
  }
  return null;
}

/* Why no hand comes next: the table withdrawn, closed by the referee (with the reason
 * given), or its session played out. */
function noNextHand(table) {
  if (table && table.withdrawn) {
    return "Withdrawn by the referee: this table is left out of the event's standings "
      + "and records no hand.";
  }
  if (table && table.closed_at) {
    const reason = closingsOf(table).current; // the close that stands, not the record
    const why = reason ? `: ${reason}` : "";
    return `Closed by the referee${why}. No more hands are recorded.`;
  }
  return "The session is over.";
}

/* A table whose stored settings this tilecam refuses (the table view's
 * `settings_refused`: settings an older tilecam stored, which no route can change): no win
 * is scored or recorded there, whatever the next-hand card shows. Said in a player's words,
 * with what the referee can do, and the service's own message (which names the setting
 * and the referee's requests) folded under it; left as it is while the message is the
 * same, so that a referee who opened it is not closed again by the next read. */
function renderRefused(table) {
  const box = $("settings-refused");
  const why = (table && table.settings_refused) || "";
  if (box.dataset.why === why) return;
  box.dataset.why = why;
  box.hidden = !why;
  if (!why) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    el("p", {}, "No win can be recorded or scored at this table: its rule settings, "
      + "stored by an older tilecam, are refused by this one, and a table's settings "
      + "cannot be changed. Ask the referee: a drawn hand can still be recorded, a hand "
      + "voided and a penalty given, or the table closed and play moved to a new one."),
    el("details", {}, el("summary", {}, "What the server says"), el("span", {}, why)));
}

/* What a screen reader is told, once, of a table whose settings are refused: when the
 * table is first read (or the service's message changes), not at every read; the box in
 * the "Next hand" card keeps the whole of it. "" when there is nothing new to say. */
function refusedNotice(table) {
  const why = (table && table.settings_refused) || "";
  const said = state.refusedSaid;
  state.refusedSaid = why;
  if (!why || why === said) return "";
  return "No win can be recorded or scored at this table: its rule settings are refused "
    + "by this tilecam. What the referee can do is under \"Next hand\".";
}

function renderNext(next, sheet, table) {
  $("next-card").hidden = false;
  if (!next) {
    $("next-title").textContent = "Next hand";
    $("next").replaceChildren(el("p", { class: "hint" }, noNextHand(table)));
    return;
  }
  $("next-title").textContent = `Next hand: ${next.number}`;
  const seats = Object.entries(next.seats).map(([w, name]) =>
    el("span", { class: "pill seat" }, `${w} ${WIND_ZH[w]} ${name}`));
  const lines = [
    el("p", {}, `Round ${next.round} (${next.prevalent_wind} ${WIND_ZH[next.prevalent_wind]}),`
      + ` hand ${next.hand_in_round}; dealer ${next.dealer}`
      + (next.dealer_repeats ? `, ${next.dealer_repeats} won in a row` : "")
      + (next.drawn_hands ? `, ${next.drawn_hands} drawn in a row` : "")),
    el("p", { class: "seats" }, seats),
  ];
  if (next.barred && next.barred.length) {
    lines.push(el("p", { class: "barred" }, "May not win this hand (停和): "
      + next.barred.map((b) => `${b.player} (${b.seat})`).join(", ")));
  }
  const assumed = assumption(next, sheet);
  if (assumed) lines.push(el("p", { class: "hint assumed" }, assumed));
  if (next.chips) {
    lines.push(el("p", { class: "hint" }, "Chips: " + Object.entries(next.chips)
      .map(([n, c]) => `${n} ${c}`).join(", ")));
  }
  $("next").replaceChildren(...lines);
}

/* Each hand in two rows: its number and what happened (across the players' columns),
 * then each player's points under the player's whole name — four columns of points and
 * the names in full fit a 360 px phone, where a column of words beside them did not. */
function renderHands(hands, names) {
  const rows = [el("tr", {}, th("#"), ...names.map((n) => th(n, { class: "v name" })))];
  for (const h of [...hands].reverse()) {
    const what = [OUTCOME[h.outcome] || h.outcome];
    if (h.winner) {
      const who = h.outcome === "win" ? "winner" : "claimed by";
      what.push(`${who} ${h.winner.player}`);
    }
    if (h.total !== null && h.total !== undefined && h.outcome !== "false_claim") {
      what.push(unit(h.rules, h.total));
    }
    const money = h.money ? Object.entries(h.money).filter(([, v]) => v) : [];
    if (money.length) {
      what.push("money " + money.map(([n, v]) => `${n} ${signed(v)}`).join(", "));
    }
    // a revision after the first record: what the referee (or a ruling before it) changed
    const changed = h.revision > 1 && ACTION[h.action]
      ? `${ACTION[h.action]} (revision ${h.revision})` : "";
    const note = h.note && (h.outcome !== "win" || changed) ? h.note : "";
    // a false claim's fans are the win's as claimed: its points are the penalty
    const fans = fansLine(h.fans);
    const fansText = fans && h.outcome === "false_claim" ? `as claimed: ${fans}` : fans;
    const cell = el("td", { class: "what", colspan: String(names.length) }, el("span", { class: `pill ${h.outcome}` }, what.join(" · ")),
      h.hand ? el("small", { class: "notation" }, h.hand) : null,
      fans ? el("small", { class: "fan-list" }, fansText) : null,
      changed ? el("small", { class: "changed" }, changed + (note ? `: ${note}` : "")) : null,
      note && !changed ? el("small", {}, note) : null);
    rows.push(el("tr", { "data-hand": String(h.number), class: changed ? "changed" : null },
      el("td", { rowspan: "2" }, String(h.number)), cell));
    rows.push(el("tr", { class: "points", "data-points": String(h.number) },
      ...names.map((n) => el("td", { class: "v" }, signed(h.points[n] || 0)))));
  }
  $("hands").replaceChildren(...rows);
  $("hands-card").hidden = hands.length === 0;
}

function renderPenalties(pens, rules) {
  const rows = [el("tr", {}, th("Player · ruling"), th("Paid", { class: "v" }))];
  const zh = { ...KIND_ZH, ...(KIND_ZH_RULES[rules] || {}) };
  for (const p of pens) {
    const kind = `${zh[p.kind] || p.kind} (${p.kind})`;
    const where = p.hand ? `hand ${p.hand}` : "";
    const own = (p.deltas && p.deltas[p.player]) || 0;
    const paid = p.to ? `to ${p.to} (${signed((p.deltas && p.deltas[p.to]) || 0)})` : "";
    const others = Object.entries(p.deltas || {})
      .filter(([n, v]) => v && n !== p.player && n !== p.to);
    const same = others.length === 3 && others.every(([, v]) => v === others[0][1]);
    const gain = !others.length || p.to ? ""
      : same ? `each other player ${signed(others[0][1])}`
        : others.map(([n, v]) => `${n} ${signed(v)}`).join(", ");
    const money = p.money ? "money apart from the points" : "";
    const text = [kind, where, paid, gain, money, p.reason || ""]
      .filter(Boolean).join(" · ") + (p.void ? ` — void: ${p.void_reason || ""}` : "");
    const amount = own ? signed(own) + (p.money ? " money" : "") : "–";
    rows.push(el("tr", { class: p.void ? "void" : null },
      el("td", { class: "player" }, p.player, el("small", {}, text),
        p.rebooked ? el("small", { class: "rebooked" },
          `step changed: ${p.rebooked.split("\n").join("; ")}`) : null),
      el("td", { class: "v" }, amount)));
  }
  $("penalties").replaceChildren(...rows);
  $("penalties-card").hidden = pens.length === 0;
}

/* ------------------------------------------------------------------ reading */
function showError(message) {
  // the same error again (every read while offline) is not written again, so that the
  // alert is not announced again
  if (message !== $("error").textContent) setText($("error"), message);
  $("error").hidden = !message;
}

/* Say (to a screen reader) what changed: the sheet, or the reads failing or working again
 * — not every read, which the "updated" pill shows. */
function announce(text) {
  $("sheet-status").textContent = text;
}

/* The form's field that a refusal asks to fix (``id``: "table-id" or "table-key"): marked
 * invalid, described by the error, and given focus — the cards that held focus are hidden
 * with the sheet. The mark goes when the field is edited, or the sheet is read. */
function markInvalid(id) {
  clearInvalid();
  const field = $(id);
  field.setAttribute("aria-invalid", "true");
  field.setAttribute("aria-describedby", "error");
  field.focus();
}

function clearInvalid(event) {
  const fields = event ? [event.target] : [$("table-id"), $("table-key")];
  for (const field of fields) {
    field.removeAttribute("aria-invalid");
    field.removeAttribute("aria-describedby");
  }
}

/* The field a final refusal (``status``, :func:`keyStatus`) asks to fix: the table
 * number for a table the server does not have or takes not (404, 422), the key for a key
 * refused (401, 403). */
function fieldToFix(status) {
  return status === 404 || status === 422 ? "table-id" : "table-key";
}

/* The form to open a table, and the hint on its key, shown or hidden together. */
function showForm(shown) {
  $("open").hidden = !shown;
  $("open-hint").hidden = !shown;
}

function clearSheet() {
  for (const id of SHEET_CARDS) $(id).hidden = true;
  $("table-title").textContent = "Score sheet";
  state.sheet = null;
  state.etag = null;
  state.reading = null;
  state.refusedSaid = "";
}

function render(sheet) {
  const table = sheet.table;
  setText($("table-title"), `${table.name} · ${table.rules}`);
  renderStandings(sheet.standings, table);
  renderClosings(table);
  renderNext(table.next_hand, sheet, table);
  renderRefused(table);
  renderHands(sheet.hands, table.players.map((p) => p.name));
  renderPenalties(sheet.penalties, table.rules);
  $("standings-card").hidden = false;
}

/* A 429 ``keys_refused``, refusing the key itself (too many refused keys from this
 * address: the service's "this request is refused (401 unauthorized: …)"), whose status
 * and reason it names: sent again, it is refused again. */
const REFUSED_KEY = /^this request is refused \((40[13]) [a-z_]+: ([\s\S]*?)\), and too many/;

/** The status a read's error stands for: a 429 refusing the key (REFUSED_KEY) is that
 * refusal's 401 or 403, its own otherwise. */
function keyStatus(err) {
  const refused = err.status === 429 && err.code === "keys_refused"
    && REFUSED_KEY.exec(err.message || "");
  return refused ? Number(refused[1]) : err.status;
}

/* Why a read failed (``status``: the status it stands for, :func:`keyStatus`), in a
 * reader's words, and (``wait``, ms; 0 when the page stops
 * reading) when the page reads again by itself — the server's Retry-After when it gave a
 * longer one — so that nobody reloads the page, or waits for a "retry in 4 s" the page
 * does not keep. A 429's "too many requests with this key" is said with whom the key is
 * shared; a 422 names the request's fields (path.table_id: …), which the reader never
 * typed. */
function readError(err, status, wait) {
  const hint = status === 401 || status === 403 || status === 422
    ? " Check the table number and its key." : "";
  let why = err.message.trim().replace(/[.!?]$/, "");
  if (status === 422) why = `the server takes no table ${state.table}`;
  else if (status !== err.status) {
    why = `the key was refused (${REFUSED_KEY.exec(err.message)[2]}), and too many refused `
      + "keys came from this network";
  } else if (status === 429) {
    why = "too many requests with this key just now (every phone or device using it counts)";
  }
  const again = wait > 0 ? ` The page reads it again in ${waitText(wait / 1000)} by itself.`
    : "";
  return `Cannot read the sheet: ${why}.${hint}${again}`;
}

async function read(seq) {
  const base = `/v1/tables/${encodeURIComponent(state.table)}`;
  let wait = state.refreshMs;
  try {
    // one request (GET /v1/tables/{id}/sheet): the table's key is rate-limited, and the
    // camera posting frames with it must not wait for the phones reading the sheet;
    // an unchanged sheet answers 304 (its ETag)
    const sheet = await api(`${base}/sheet`);
    if (seq !== state.seq) return; // another table or key was opened meanwhile
    const time = new Date().toLocaleTimeString();
    // (an answer without an ETag comes whole each time: compared, not taken as a change)
    const changed = sheet && state.sheet !== null
      && JSON.stringify(sheet) !== JSON.stringify(state.sheet);
    if (sheet) {
      state.sheet = sheet;
      render(sheet);
    }
    const said = [
      state.reading === "failed" ? `The sheet is read again, ${time}.`
        : changed ? `The sheet changed, ${time}.` : "",
      sheet ? refusedNotice(sheet.table) : "", // said once per table opened
    ].filter(Boolean);
    if (said.length) announce(said.join(" "));
    state.reading = "ok";
    showForm(false);
    showError("");
    clearInvalid();
    $("updated").textContent = `updated ${time}`;
    $("updated").className = "pill ok";
  } catch (err) {
    if (seq !== state.seq) return;
    const status = keyStatus(err);
    const final = status === 401 || status === 403 || status === 404 || status === 422;
    if (!final && err.retryAfter) wait = Math.max(wait, err.retryAfter * 1000);
    showError(readError(err, status, final ? 0 : wait));
    state.reading = "failed"; // (the alert says so, once: see showError)
    $("updated").textContent = "not updated";
    $("updated").className = "pill bad";
    if (final) {
      clearSheet();
      showForm(true);
      markInvalid(fieldToFix(status));
      return; // no more reads until the address or the form says otherwise
    }
  }
  if (seq === state.seq) schedule(wait);
}

function schedule(wait) {
  stop();
  const seq = state.seq;
  state.timer = setTimeout(function tick() {
    state.timer = null;
    if (document.visibilityState === "visible") read(seq);
    else state.timer = setTimeout(tick, state.refreshMs); // a hidden page reads nothing
  }, wait);
}

function stop() {
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
}

function open(table, key) {
  stop();
  state.seq += 1; // answers for the table before are dropped
  if (table !== state.table || key !== state.key) clearSheet();
  state.table = table;
  state.key = key;
  $("table-id").value = table;
  read(state.seq);
}

function close(message) {
  stop();
  state.seq += 1;
  state.table = state.key = null;
  clearSheet();
  showForm(true);
  showError(message);
}

document.addEventListener("visibilitychange", () => {
  // coming back to the page: read at once rather than at the next tick
  if (document.visibilityState === "visible" && state.table && state.timer !== null) {
    stop();
    read(state.seq);
  }
});

$("open").addEventListener("submit", (event) => {
  event.preventDefault();
  const table = $("table-id").value.trim();
  const key = $("table-key").value.trim();
  if (!validTable(table)) {
    showError(`The table number is a whole number from 1 to ${MAX_TABLE}.`);
    markInvalid("table-id");
    return;
  }
  toAddress(table, key);
  open(table, key);
});

function openFromAddress() {
  const given = fromAddress();
  if (!given) {
    if (state.table) close("");
    else showForm(true); // hidden in the page until this script runs
    return;
  }
  if (!validTable(given.table) || !given.key) {
    close("The address should end with #table=N&key=…: a table number from 1 and its key.");
    return;
  }
  if (given.table !== state.table || given.key !== state.key) open(given.table, given.key);
}

$("table-id").addEventListener("input", clearInvalid);
$("table-key").addEventListener("input", clearInvalid);
window.addEventListener("hashchange", openFromAddress); // another table, or key, typed in
openFromAddress();
