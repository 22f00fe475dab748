/* tilecam phone page: photo → /v1/recognize → boxes on the photo → tap to correct →
 * re-score with /v1/score. Plain browser JavaScript, no build step. */
"use strict";

const WINDS = ["E", "S", "W", "N"];
const WIND_ZH = { E: "东", S: "南", W: "西", N: "北" };
const MAX_SIDE = 1600; // photos are downscaled to this long side before upload (pixels)
// the server's upload limit as shipped (Settings.max_upload_bytes): a photo this browser
// cannot shrink (it cannot decode it) and larger than this is not sent
const MAX_UPLOAD = 15 * 1024 * 1024;
const FLOWER = /^[1-8]f$/;
const UNSURE = 0.5; // a tile read with less confidence than this is marked unsure
/* each tile's name in words, for a screen reader (the page shows its code and Chinese) */
const SUIT_WORDS = { m: "characters", p: "dots", s: "bamboo" };
const TILE_WORDS = {
  E: "east wind", S: "south wind", W: "west wind", N: "north wind",
  C: "red dragon", F: "green dragon", P: "white dragon", back: "face-down tile",
  "1f": "spring", "2f": "summer", "3f": "autumn", "4f": "winter",
  "5f": "plum", "6f": "orchid", "7f": "chrysanthemum", "8f": "bamboo flower",
};

const state = {
  zh: {},            // tile code → Chinese name
  classes: [],       // the 43 detector classes
  ruleSets: {},      // name → describe() of GET /v1/rules
  seat_wind: "E",
  prevalent_wind: "E",
  flowers: 0,
  flowersListed: 0,  // flowers the hand box listed when the stepper was last synced
  photo: null,       // {url, width, height}
  tiles: [],         // recognized tiles: {code, box, role, order, confidence, topk, changed, removed}
  melds: [],         // [{notation, claimed_from, claimed_index, added, tiles: [tile indices]}]
  winningTile: null, // the winning tile the recognizer chose when none was set apart
  numbered: new Set(), // tiles the notes name by number ("tile 15"): the photo shows it
  rec: null,         // the recognizer's answer now shown
  detached: false,   // the hand box holds a reading the tiles do not (an alternative)
  altHand: null,     // that alternative's hand (detached or not)
  altButton: null,   // the "use" button of the alternative used last
  photoHand: null,   // the hand box's text as the page last put it from the photo
  keptPhoto: null,   // a photo refused for its win context: sent again when that changes
  retryPhoto: null,  // a photo the server did not read (busy, slow, unreached): sent again by a button
  retryTimer: null,  // the countdown (setInterval, 1 s) of the Retry-After before that button is enabled
  shownRules: null,  // the rule set whose fields the page shows
  chosen: {},        // rule set → {version, fields, flowers} the user chose, kept for the session
  takenFlowers: null, // {hand, flowers}: flowers taken out of a typed hand by rules without them
  noteAbout: "",     // what the note under the hand box is about ("no-flowers" or "")
  readWithFlowers: true, // the photo was read under rules that play flowers
  scoreSeq: 0,       // ignore answers of superseded score requests
  photoSeq: 0,       // ignore answers of superseded uploads
  upload: null,      // the AbortController of the upload in flight
  uploadTimeoutMs: 60000, // a stalled upload is given up after this long
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = tag === "svg" || tag === "rect" || tag === "text"
    ? document.createElementNS("http://www.w3.org/2000/svg", tag)
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.setAttribute("class", v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(...childNodes(node, c)); // http.js
  }
  return node;
}

/** A tile's name in words: "5 bamboo", "south wind", "spring" (see TILE_WORDS). */
function tileWords(code) {
  if (TILE_WORDS[code]) return TILE_WORDS[code];
  const suit = SUIT_WORDS[String(code).slice(-1)];
  if (!suit) return String(code);
  return `${code[0]} ${code[0] === "1" && suit !== "bamboo" ? suit.replace(/s$/, "") : suit}`;
}

/** A tile as the page writes it in text: its code and Chinese name, "5m 五万" (the code
 * alone when the rules' names are not loaded). */
function tileText(code) {
  return state.zh[code] ? `${code} ${state.zh[code]}` : String(code);
}

/* seat offsets' names in a settlement, with the Chinese a table uses */
const SEAT_ZH = { left: "上家", opposite: "对家", right: "下家" };

/** A settlement's payer or seat: "left (上家)", "opposite (对家)", "right (下家)"; a role
 * ("winner", "discarder", "other", "claimant") as it is. */
function seatText(name) {
  return SEAT_ZH[name] ? `${name} (${SEAT_ZH[name]})` : String(name);
}

/* ------------------------------------------------------------------ HTTP */
async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    if (options.signal && options.signal.aborted) throw err; // the caller knows why
    console.warn(`${path}: ${err.message}`); // the browser's words, for whoever debugs
    throw Object.assign(new Error("cannot reach the server: check the phone's connection "
      + "and try again"), { code: "network" });
  }
  return readAnswer(response); // http.js
}

/** An error said plainly: what the photo upload's HTTP status means, and when to try
 * again (Retry-After). A photo over a size limit (413) is said in words a phone user can
 * act on, with the limit the server named (its bytes, megabytes or megapixels). */
function errorText(err, photo = false) {
  let text = (photo && busyText(err)) || err.message;
  if (photo && err.status === 413) {
    const limit = /(\d+(?:\.\d+)?) (MiB|megapixels)/.exec(text || "");
    const said = limit ? ` (its limit is ${limit[1]} ${limit[2] === "MiB" ? "MB" : limit[2]})` : "";
    text = `the photo is too large for the server${said}: use “Take a photo”, which the `
      + "page shrinks before sending it, or choose a smaller photo";
  }
  text = text.trim();
  if (!/[.!?]$/.test(text)) text += ".";
  if (err.retryAfter) text += ` Try again in ${waitText(err.retryAfter)}.`;
  else if (err.code === "not_json" && err.status >= 500) text += " Try again in a moment.";
  return text;
}

/** What a photo's 503 ``busy`` or ``timeout``, or 429, means to a phone user, or null: the
 * server's words are for programs ("send fewer at once, and retry after Retry-After"). A
 * ``timeout`` says where its time went, as the service writes it
 * (tilecam.api.errors.timeout_error): waiting in the queue behind other photos, or
 * reading this one; seconds as whole numbers. */
function busyText(err) {
  const message = String(err.message || "");
  if (err.code === "timeout") {
    const queued = /waited (\d+(?:\.\d+)?) s in the queue/.exec(message);
    if (queued) {
      return "the server is busy reading other photos: this one waited "
        + `${Math.round(Number(queued[1]))} s for its turn and was not read`;
    }
    const ran = /\bit ran (\d+(?:\.\d+)?) s/.exec(message);
    return "reading this photo took longer than the server allows"
      + (ran ? ` (${Math.round(Number(ran[1]))} s)` : "");
  }
  if (err.code === "busy") return "the server is busy reading other photos";
  if (err.status === 429) return "too many photos were sent just now";
  return null;
}

/** Whether a photo that failed with ``err`` (``why``: the page's own abort reason) is
 * worth sending again as it is: the server was busy or slow (503 other than no model,
 * 429, 408, a gateway's 502 or 504) or not reached, or gave no answer in time. */
function retryable(err, why) {
  if (why === "timeout" || err.code === "network") return true;
  if (err.status === 503) return err.code !== "not_ready";
  return [408, 429, 502, 504].includes(err.status);
}

/** Keep ``file`` after a failure the server may not repeat (see :func:`retryable`), or
 * after Cancel: "Send the photo again" sends it, enabled once ``seconds`` (Retry-After)
 * have passed — a hand at the table is mixed for the next deal, and cannot be
 * photographed again. While it waits, the line beside the button says how long is left
 * (every second, counted from the clock, not from the timer, which a phone slows in the
 * background); that line is not a live region: a screen reader hears the wait once in
 * the alert, and once, when it is over, that the photo can be sent now. */
function offerRetry(file, seconds) {
  stopRetryWait();
  state.retryPhoto = file;
  $("photo-again").hidden = false;
  const until = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    $("photo-again-btn").disabled = left > 0;
    $("photo-again-wait").textContent = left > 0 ? `available in ${waitText(left)}` : "";
    if (left > 0) return;
    stopRetryWait();
    if (seconds > 0) sayPhoto("The photo can be sent again now: “Send the photo again”.");
  };
  tick();
  if (seconds > 0) state.retryTimer = setInterval(tick, 1000);
}

function stopRetryWait() {
  clearInterval(state.retryTimer);
  state.retryTimer = null;
}

/** No photo to send again (a photo is being sent, or a newer one chosen). */
function dropRetry() {
  stopRetryWait();
  state.retryPhoto = null;
  $("photo-again").hidden = true;
  $("photo-again-wait").textContent = "";
}

/** Say ``text`` to a screen reader (the photo card's polite status, seen by nobody);
 * emptied first, so that the same words as last time (a second wait over) are said too. */
function sayPhoto(text) {
  const node = $("photo-said");
  node.textContent = "";
  setTimeout(() => { node.textContent = text; }, 100);
}

/** The Cancel button had focus and is hidden (the photo read, failed or cancelled): focus
 * goes to "Send the photo again" when it can be pressed, else to "Take a photo" — not to
 * the page's start, where a keyboard or screen-reader user would be lost. */
function focusAfterBusy() {
  const again = $("photo-again-btn");
  (!$("photo-again").hidden && !again.disabled ? again : $("photo")).focus();
}

const postJSON = (path, data) => api(path, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(data),
});

/* ------------------------------------------------------------------ notation */
function tileSort(a, b) {
  const order = (c) => {
    if (/^[1-9][mps]$/.test(c)) return "mps".indexOf(c[1]) * 9 + Number(c[0]);
    const h = "ESWNCFP".indexOf(c);
    return h >= 0 ? 30 + h : 40;
  };
  return order(a) - order(b);
}

/** Codes in order → compact notation (["1m","2m","E"] → "12mE", ["1f","3f"] → "13f"). */
function formatTiles(codes) {
  let out = "";
  let digits = "";
  let suit = "";
  for (const c of codes) {
    if (/^[1-9][mpsf]$/.test(c)) {
      if (suit && c[1] !== suit) { out += digits + suit; digits = ""; }
      suit = c[1];
      digits += c[0];
    } else {
      if (digits) { out += digits + suit; digits = ""; suit = ""; }
      out += c;
    }
  }
  return out + (digits ? digits + suit : "");
}

/** One meld → bracket notation of RULES.md. */
function formatMeld(kind, codes, claimedFrom, claimedIndex, added) {
  const text = formatTiles([...codes].sort(tileSort));
  if (kind === "chow") return claimedIndex === null || claimedIndex === undefined
    ? `[${text}]` : `[${text},${claimedIndex + 1}]`;
  if (claimedFrom === null || claimedFrom === undefined) return `[${text}]`;
  return `[${text},${added ? claimedFrom + 4 : claimedFrom}]`;
}

/** Whether the rule set chosen plays with flowers (GET /v1/rules: ``flowers: false``
 * where it does not; MCR says nothing and plays them). */
function flowersPlayed() {
  const info = state.ruleSets[$("rules").value];
  return !info || info.flowers !== false;
}

/** The photo's tiles grouped as the hand writes them (tile indices): each meld's tiles,
 * the standing tiles in the layout's order (``order``: as the row reads, the winning tile
 * set apart last; tiles without one just before the row's last tile, by index; a winning
 * tile always last), and the flowers. */
function handGroups() {
  const inMeld = new Set();
  const melds = state.melds.map((m) => {
    m.tiles.forEach((i) => inMeld.add(i));
    return m.tiles.filter((i) => !state.tiles[i].removed);
  });
  const standing = [];
  const flowers = [];
  state.tiles.forEach((t, i) => {
    if (t.removed || inMeld.has(i) || t.role === "ignored") return;
    if (FLOWER.test(t.code)) flowers.push(i);
    else standing.push(i);
  });
  // a tile without ``order`` (read as a flower or left out, then corrected to a kind)
  // goes before the row's last tile: that one is the winning tile when none is set
  // apart, and a correction elsewhere must not make another tile the winning one
  const orders = standing.map((i) => state.tiles[i].order).filter((o) => typeof o === "number");
  const last = orders.length ? Math.max(...orders) : null;
  const rank = (i) => {
    const t = state.tiles[i];
    if (t.role === "winning") return [2, 0, i];
    if (typeof t.order === "number") return [0, t.order, i];
    return last === null ? [1, 0, i] : [0, last - 0.5, i];
  };
  standing.sort((a, b) => {
    const [ga, ka, ia] = rank(a);
    const [gb, kb, ib] = rank(b);
    return ga - gb || ka - kb || ia - ib;
  });
  flowers.sort((a, b) => state.tiles[a].code.localeCompare(state.tiles[b].code) || a - b);
  return { melds, standing, flowers };
}

/** The hand in notation from the (corrected) tiles and the layout's melds.
 * Melds none of whose tiles changed keep the recognizer's notation (it knows the kind
 * of a kong shown all face down); changed ones are rebuilt from their tiles. Standing
 * tiles follow the layout's order, so the last one (the winning tile when none is set
 * apart) stays the one at the row's right end, corrected or not. */
function handFromTiles() {
  const groups = handGroups();
  const parts = [];
  state.melds.forEach((m, k) => {
    const idx = groups.melds[k];
    if (!idx.length) return;
    const touched = m.tiles.some((i) => state.tiles[i].changed || state.tiles[i].removed);
    if (!touched && m.notation) { parts.push(m.notation); return; }
    const codes = idx.map((i) => state.tiles[i].code);
    const face = codes.filter((c) => c !== "back");
    // a concealed kong shows backs: its kind is the face-up tiles' kind
    const filled = codes.map((c) => (c === "back" && face.length ? face[0] : c));
    const kind = filled.length === 4 ? "kong"
      : (new Set(filled).size === 1 ? "pung" : "chow");
    parts.push(formatMeld(kind, filled, kind === "chow" ? 1 : m.claimed_from,
      kind === "chow" ? m.claimed_index : null, kind === "kong" && m.added));
  });
  const standing = groups.standing.filter((i) => state.tiles[i].code !== "back");
  const codes = standing.map((i) => state.tiles[i].code);
  const ordered = standing.some((i) => typeof state.tiles[i].order === "number"
    || state.tiles[i].role === "winning");
  if (!ordered && state.winningTile) {
    // an answer without ``order`` (an older server): the recognizer's winning tile last
    const k = codes.lastIndexOf(state.winningTile);
    if (k >= 0) codes.push(codes.splice(k, 1)[0]);
  }
  const flowers = flowersPlayed() ? groups.flowers.map((i) => state.tiles[i].code) : [];
  // the last tile written on its own, as the service writes a hand: "…448p8p", won on 8p
  return parts.join("") + formatTiles(codes.slice(0, -1)) + formatTiles(codes.slice(-1))
    + formatTiles(flowers);
}

/** Tile codes of notation (``"[EEE,2]12mN"`` → melds [["E","E","E"]], rest ["1m","2m","N"]). */
function tilesOfNotation(text) {
  const expand = (s) => {
    const out = [];
    let digits = "";
    for (const ch of s) {
      if (/[0-9]/.test(ch)) digits += ch;
      else if ("mpsf".includes(ch)) { for (const d of digits) out.push(d + ch); digits = ""; }
      else if ("ESWNCFPX".includes(ch)) out.push(ch);
    }
    return out;
  };
  const melds = [];
  const rest = text.replace(/\[([^\]]*)\]/g, (_, inner) => {
    melds.push(expand(inner.replace(/,.*$/, "")));
    return "";
  });
  return { melds, rest: expand(rest) };
}

/** Two hands the same as the scorer reads them: the same melds' tiles, the same standing
 * tiles in the same order (the last is the winning tile), the same flowers. */
function sameHand(a, b) {
  const key = (text) => {
    const { melds, rest } = tilesOfNotation(text);
    return [melds.map((m) => [...m].sort().join(" ")).sort().join("|"),
      rest.filter((c) => !FLOWER.test(c)).join(" "),
      rest.filter((c) => FLOWER.test(c)).sort().join(" ")].join("#");
  };
  return key(a) === key(b);
}

/** Flowers written in the hand text (``1f``-``8f``), counted. */
function flowersInHand(text) {
  let n = 0;
  for (const m of text.matchAll(/([1-8]+)f/g)) n += m[1].length;
  return n;
}

function syncFlowerStepper() {
  // flowers listed in the hand count themselves; the stepper is for flowers not shown
  const played = flowersPlayed();
  const listed = flowersInHand($("hand").value);
  $("flowers-minus").disabled = $("flowers-plus").disabled = listed > 0 || !played;
  if (!played) setFlowers(0);
  else if (listed > 0) setFlowers(listed);
  else if (state.flowersListed > 0) setFlowers(0); // the count was the old hand's flowers
  state.flowersListed = played ? listed : 0;
  // why − and + are off: the rules play no flowers, or the hand lists its own
  const info = state.ruleSets[$("rules").value] || {};
  const flowers = [...$("hand").value.matchAll(/([1-8]+)f/g)].map((m) => m[0]).join(" ");
  const title = info.title || $("rules").value;
  setText($("flowers-none"), !played ? `${title} is played without flowers.`
    : listed > 0 ? `Counted from the hand's flowers (${flowers}): edit the hand to change them.`
      : "");
  $("flowers-none").hidden = played && listed === 0;
}

function handNote(text, about = "", action = null) {
  // ``action``: {label, run} — a button after the text (e.g. read the photo again)
  $("hand-note").replaceChildren(...langRuns(text || ""), ...(action ? [" ", el("button", {
    type: "button", class: "ghost small", onclick: action.run }, action.label)] : []));
  $("hand-note").hidden = !text;
  state.noteAbout = text ? about : "";
}

/** Rules without flowers: the stepper is off, and flowers in the hand box (a photo read
 * under other rules) are taken out of it, saying so. */
function applyFlowerRule() {
  const played = flowersPlayed();
  const info = state.ruleSets[$("rules").value] || {};
  const title = info.title || $("rules").value;
  const text = $("hand").value;
  if (played && state.noteAbout === "no-flowers") handNote(""); // said of the rules before
  if (!played && flowersInHand(text) > 0) {
    const dropped = [...text.matchAll(/([1-8]+)f/g)].map((m) => m[0]).join(" ");
    $("hand").value = text.replace(/[1-8]+f/g, "");
    // kept, to be put back if rules that play them are chosen before the hand is edited
    state.takenFlowers = { hand: $("hand").value, flowers: dropped.replace(/ /g, "") };
    handNote(`${title} is played without flowers: ${dropped} taken out of the hand.`,
      "no-flowers");
  }
  syncFlowerStepper();
}

/** The controls of rule set ``rules`` as the user left them (version, settings, rule
 * fields, the flower count), kept for when it is chosen again this session. */
function saveChoices(rules) {
  if (!rules) return;
  const fields = {};
  for (const box of ["rule-context", "rule-settings"]) {
    for (const input of $(box).querySelectorAll("[data-name]")) {
      fields[`${box}/${input.dataset.name}`] = input.type === "checkbox" ? input.checked
        : input.value;
    }
  }
  // the stepper's count is for flowers the hand does not show: kept with that hand only
  const hand = $("hand").value;
  state.chosen[rules] = { version: $("version").value, fields, hand,
    flowers: flowersInHand(hand) > 0 ? 0 : state.flowers };
}

/** Put back what :func:`saveChoices` kept of the rule set now shown (fields only: the
 * flower count is put back by onRulesChange, after the flower rule is applied). */
function restoreChoices(rules) {
  const kept = state.chosen[rules];
  if (!kept) return;
  if ([...$("version").options].some((o) => o.value === kept.version)) {
    $("version").value = kept.version;
  }
  for (const box of ["rule-context", "rule-settings"]) {
    for (const input of $(box).querySelectorAll("[data-name]")) {
      const value = kept.fields[`${box}/${input.dataset.name}`];
      if (value === undefined) continue;
      if (input.type === "checkbox") input.checked = value;
      else input.value = value;
    }
  }
  markNeeded();
}

/** The hand box's text is the page's reading of the photo (not a hand the user typed). */
function holdsPhotoHand() {
  return state.rec !== null && state.photoHand !== null && $("hand").value === state.photoHand;
}

function markPhotoHand() {
  state.photoHand = $("hand").value;
}

/** The rule set changed. A hand box that still holds the photo's reading is rebuilt from
 * the tiles, with the flowers the new rules play (put back when they play them); one the
 * user typed is theirs (only flowers the rules do not play are taken out of it). */
function onRulesChange() {
  const ours = holdsPhotoHand();
  const before = $("hand").value;
  saveChoices(state.shownRules);
  fillVersions();
  fillRuleFields();
  restoreChoices($("rules").value);
  if (ours && flowersPlayed()) { // (without them, applyFlowerRule takes them out, saying so)
    const rebuilt = state.detached ? state.altHand : handFromTiles();
    if (!sameHand(rebuilt, before)) $("hand").value = rebuilt;
  }
  applyFlowerRule();
  const taken = state.takenFlowers;
  if (!ours && taken && flowersPlayed() && $("hand").value === taken.hand) {
    // a typed hand whose flowers rules without them took out, not edited since: back in
    const info = state.ruleSets[$("rules").value] || {};
    $("hand").value = taken.hand + taken.flowers;
    state.takenFlowers = null;
    syncFlowerStepper();
    handNote(`${info.title || $("rules").value} plays flowers: ${taken.flowers} put back in `
      + "the hand.");
  }
  const kept = state.chosen[$("rules").value];
  if (kept && kept.flowers && flowersPlayed() && $("hand").value === kept.hand) {
    setFlowers(kept.flowers); // the stepper's count for the same hand, as it was left
  }
  if (ours) {
    markPhotoHand();
    const info = state.ruleSets[$("rules").value] || {};
    const title = info.title || $("rules").value;
    const back = [...$("hand").value.matchAll(/([1-8]+)f/g)].map((m) => m[0]).join(" ");
    // read under rules without flowers, the recognizer left them out of the hand
    const left = state.tiles.filter((t) => !t.removed && t.role === "ignored"
      && FLOWER.test(t.code)).map((t) => t.code);
    if (back && flowersInHand(before) === 0) {
      handNote(`${title} plays flowers: ${back} from the photo put back in the hand.`);
    } else if (flowersPlayed() && !state.readWithFlowers && left.length) {
      const photo = state.photo;
      handNote(`The photo was read under rules without flowers, so the flowers beside it `
        + `(${left.join(" ")}) are not in the hand: read it again to count them under `
        + "these rules, or count them with the flower stepper.", "",
      photo && photo.blob ? { label: `Read the photo again under ${title}`,
        run: () => onPhoto(new File([photo.blob], photo.name, { type: photo.blob.type })) }
        : null);
    }
  }
  renderHandTiles();
  drawBoxes();
  syncAltButtons();
  contextChanged();
}

/** A control of the win context changed: score again, and send again a photo refused
 * for its win context (once: it is no longer kept). */
function contextChanged() {
  rescore();
  // sent again only once what it needs is chosen (Zhenjiang's indicator…): a change of
  // another control would be refused the same way
  if (state.keptPhoto && !neededText()) {
    const file = state.keptPhoto;
    state.keptPhoto = null;
    onPhoto(file);
  }
}

/** The rule set's context fields of which one must be chosen to read a photo (GET
 * /v1/rules: a rule set with a wild tile, ``wild``, needs its tile fields — Zhenjiang's
 * indicator or 百搭, Xiamen's gold or indicator); the indicator first. */
function neededInputs() {
  const info = state.ruleSets[$("rules").value] || {};
  if (!info.wild) return [];
  const names = Object.entries(info.context || {})
    .filter(([n, spec]) => TILE_FIELDS.has(n) && spec.default === null)
    .map(([n]) => n)
    .sort((a, b) => (b === "indicator") - (a === "indicator"));
  return names.map((n) => $("rule-context").querySelector(`[data-name="${n}"]`)).filter(Boolean);
}

/** What the photo needs chosen first, said ("the indicator or the wild"), or "" when
 * nothing is missing. */
function neededText() {
  const inputs = neededInputs();
  if (!inputs.length || inputs.some((i) => JSON.parse(i.value) !== null)) return "";
  return inputs.map((i) => `the ${i.dataset.name.replace(/_/g, " ")}`).join(" or ");
}

/** Mark the fields a photo needs while none of them is chosen, and say so by the photo
 * buttons. */
function markNeeded() {
  const missing = neededText();
  const info = state.ruleSets[$("rules").value] || {};
  const what = String(info.wild || "").split(":")[0].trim();
  $("photo-needs").textContent = missing
    ? `${info.title || $("rules").value} needs ${what ? `the ${what}` : "a tile chosen"} `
      + `to read a photo: choose ${missing} under Win first.`
    : "";
  $("photo-needs").hidden = !missing;
  for (const input of neededInputs()) {
    const field = input.closest(".field");
    if (field) field.classList.toggle("needed", Boolean(missing));
    // described by the line saying it is needed, besides its own description
    const ids = (input.getAttribute("aria-describedby") || "").split(" ")
      .filter((x) => x && x !== "photo-needs");
    if (missing) ids.unshift("photo-needs");
    if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
    else input.removeAttribute("aria-describedby");
  }
}

/* ------------------------------------------------------------------ context */
const WIN_TOGGLES = ["self_drawn", "last_of_kind", "kong", "last_wall_tile"];
const WIN_WINDS = ["seat_wind", "prevalent_wind"];

/** The control of a general win-context field (a toggle's label, a wind's row). */
function winControl(id) {
  return $(id).closest(WIN_WINDS.includes(id) ? ".field" : "label");
}

/** Show only the general win-context controls the rule set reads (GET /v1/rules
 * ``win_fields``: Xiamen and Zhenjiang read no winds, 海底 or 和绝张); the others would
 * change nothing. */
function applyWinFields() {
  const info = state.ruleSets[$("rules").value] || {};
  const fields = info.win_fields || [...WIN_TOGGLES, ...WIN_WINDS];
  for (const id of [...WIN_TOGGLES, ...WIN_WINDS]) winControl(id).hidden = !fields.includes(id);
}

function context() {
  const rules = $("rules").value || "mcr";
  const on = (id) => !winControl(id).hidden && $(id).checked;
  const ctx = {
    rules,
    self_drawn: on("self_drawn"),
    last_of_kind: on("last_of_kind"),
    kong: on("kong"),
    last_wall_tile: on("last_wall_tile"),
    flowers: flowersInHand($("hand").value) > 0 ? 0 : state.flowers,
  };
  for (const id of WIN_WINDS) if (!winControl(id).hidden) ctx[id] = state[id];
  const version = $("version").value;
  if (version && !$("version-field").hidden) ctx.version = version;
  const ruleContext = collectFields($("rule-context"));
  if (Object.keys(ruleContext).length) ctx.rule_context = ruleContext;
  const settings = collectFields($("rule-settings"));
  if (Object.keys(settings).length) ctx.settings = settings;
  return ctx;
}

/** The win context as sent with a photo (flowers are read from the photo), for comparing. */
function contextKey(ctx) {
  const { flowers, ...rest } = ctx;
  return JSON.stringify(rest);
}

function setFlowers(n) {
  state.flowers = Math.max(0, Math.min(8, n));
  $("flowers").textContent = String(state.flowers);
}

/** A wind's four choices: native radio buttons sharing a name, so that the group is one
 * Tab stop and the arrow keys move the choice (each looks like a segment button). */
function buildWindButtons(id) {
  $(id).replaceChildren(...WINDS.map((w) => el("label", { class: "seg-option", "data-wind": w },
    el("input", {
      type: "radio", name: id, value: w, checked: state[id] === w,
      onchange: (e) => { if (e.target.checked) { state[id] = w; contextChanged(); } },
    }),
    el("span", {}, `${w} ${WIND_ZH[w]}`))));
}

const TILE_FIELDS = new Set(["gold", "indicator", "wild"]);

let hintCount = 0; // the rule fields' descriptions get ids of their own

/** One input for a rule set's setting or context field (see GET /v1/rules), with its
 * description under it: [the label holding the input, the description]. The label names
 * the input by the field's name alone; the description is its accessible description. */
function fieldInput(name, spec) {
  const hintId = `field-hint-${++hintCount}`;
  const common = { "data-name": name, "data-default": JSON.stringify(spec.default),
    "aria-describedby": spec.description ? hintId : null };
  const hint = spec.description ? el("small", { class: "hint field-hint", id: hintId },
    spec.description) : null;
  let input;
  if (spec.choices) {
    input = el("select", common, spec.choices.map((c) => el("option", {
      value: JSON.stringify(c), selected: c === spec.default,
    }, c === "" ? "—" : String(c))));
  } else if (TILE_FIELDS.has(name)) {
    input = el("select", common, el("option", { value: "null" }, "—"),
      state.classes.filter((c) => !/f$/.test(c) && c !== "back").map((c) => el("option", {
        value: JSON.stringify(c), selected: c === spec.default,
      }, tileText(c))));
  } else if (typeof spec.default === "boolean") {
    input = el("input", { ...common, type: "checkbox", checked: spec.default });
    return [el("label", { class: "toggle" }, input, ` ${name.replace(/_/g, " ")}`), hint];
  } else if (typeof spec.default === "number") {
    const whole = spec.type === "integer";  // the scorer refuses 1.5 chips
    input = el("input", {
      ...common, type: "number", step: whole ? "1" : "any", min: spec.minimum, max: spec.maximum,
      value: String(spec.default), inputmode: whole ? "numeric" : "decimal",
    });
  } else {
    input = el("input", { ...common, type: "text", value: spec.default ?? "" });
  }
  return [el("label", { class: "field" }, name.replace(/_/g, " "), input), hint];
}

/** A sentence naming the rule fields whose number the browser could not read (``1e400``:
 * it sends "" for it, which would be taken as the default), or "". */
function unreadableFields() {
  const bad = [...document.querySelectorAll("#rule-context [data-name], #rule-settings [data-name]")]
    .filter((input) => input.validity && input.validity.badInput)
    .map((input) => input.dataset.name.replace(/_/g, " "));
  return bad.length ? `${bad.join(", ")}: not a number that can be sent; enter a plain `
    + "number (or clear it for the default)." : "";
}

/** {name: value} of the inputs in ``box`` whose value differs from the default. */
function collectFields(box) {
  const out = {};
  for (const input of box.querySelectorAll("[data-name]")) {
    const def = JSON.parse(input.dataset.default);
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.tagName === "SELECT") value = JSON.parse(input.value);
    else if (input.type === "number") value = input.value === "" ? def : Number(input.value);
    else value = input.value === "" && def === null ? null : input.value;
    if (value !== def) out[input.dataset.name] = value;
  }
  return out;
}

function fillRuleFields() {
  state.shownRules = $("rules").value;
  const info = state.ruleSets[$("rules").value] || {};
  const ctx = Object.entries(info.context || {});
  $("rule-context").replaceChildren(...ctx.flatMap(([n, spec]) => fieldInput(n, spec))
    .filter(Boolean));
  const settings = Object.entries(info.settings || {}).filter(([n]) => n !== "version");
  $("rule-settings").replaceChildren(...settings.flatMap(([n, spec]) => fieldInput(n, spec))
    .filter(Boolean));
  $("settings-box").hidden = settings.length === 0;
  applyWinFields();
  markNeeded();
}

function fillVersions() {
  const info = state.ruleSets[$("rules").value];
  const versions = (info && info.versions) || [];
  $("version-field").hidden = versions.length === 0;
  $("version").replaceChildren(...versions.map((v) => el("option", {
    value: v, selected: info.default_version === v,
  }, v)));
}

/* ------------------------------------------------------------------ results */
function showError(message) {
  setText($("error"), message);
  $("error").hidden = false;
}

function clearResult() {
  $("head-total").hidden = true;
  $("error").hidden = true;
  $("result").hidden = true;
  $("waits").hidden = true;
}

/** The word for a total: MCR counts fan (and pays points); Xiamen and Zhenjiang count the
 * chips a payer pays, their settlement's unit. */
function totalUnit(rules, settlementUnit) {
  return !rules || rules === "mcr" ? "fan" : (settlementUnit || "chips");
}

/** "+5" / "-7": a net amount, signed. */
function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** One payer's part of a regional settlement: what he pays the winner (a negative amount,
 * from a false claimant, is received), and money apart from the chips (Xiamen's bonus;
 * negative: received). */
function paymentText(p, unit) {
  const bonus = Number(p.bonus || 0);
  const chips = p.amount < 0 ? `receives ${-p.amount}` : `pays ${p.amount}`;
  const payer = seatText(p.payer);
  if (bonus > 0) return `${payer} ${chips} + ${bonus} bonus money`;
  if (bonus < 0) {
    return p.amount === 0 ? `${payer} receives ${-bonus} money apart from the ${unit}`
      : `${payer} ${chips}, receives ${-bonus} money apart from the ${unit}`;
  }
  return `${payer} ${chips}`;
}

/** A regional settlement, line by line: why a claimed win is none, the winner's (or the
 * false claimant's) take and each payer's part with any bonus money, the rules' own
 * transfers (Zhenjiang 打首搭 / 碰后打搭) and each seat's net, as `tilecam score` prints. */
function regionalSettlement(score) {
  const s = score.settlement || {};
  const d = score.details || {};
  const unit = s.unit || "chips";
  const lines = [];
  if (!score.legal && d.reason && !(s.note || "").includes(d.reason)) {
    lines.push(`Not a win (诈胡): ${d.reason}`);
  }
  const payments = s.payments || [];
  if (payments.length) {
    const money = payments.reduce((sum, p) => sum + Number(p.bonus || 0), 0);
    const who = score.legal ? "winner" : "claimant";
    lines.push(`Settlement (${unit}): ${who} ${signed(s.winner || 0)}`
      + (money ? `, ${signed(money)} ${money > 0 ? "bonus " : ""}money apart from the ${unit}` : "")
      + "; " + payments.map((p) => paymentText(p, unit)).join(", ")
      + (s.note ? ` — ${s.note}` : ""));
  } else if (s.note) {
    lines.push(`Settlement (${unit}): ${s.note}`);
  }
  const seat = (name) => (name === "winner" && !score.legal ? "claimant" : seatText(name));
  const events = d.events || [];
  if (events.length) {
    lines.push("Transfers: " + events.map((e) =>
      `${seat(e.from)} → ${seat(e.to)} ${e.amount} (${e.reason})`).join("; "));
  }
  if (d.net && Object.keys(d.net).length) {
    lines.push(`Net (${unit}): ` + Object.entries(d.net).map(([name, n]) =>
      `${seat(name)} ${signed(n)}`).join(", "));
  }
  return lines.join("\n");
}

function renderScore(score) {
  const mcr = totalUnit(score.rules) === "fan";
  const units = totalUnit(score.rules, score.settlement && score.settlement.unit);
  const unit = score.total === 1 ? units.replace(/s$/, "") : units;  // 1 chip
  $("total").textContent = String(score.total);
  $("total-unit").textContent = unit;
  const legal = $("legal");
  setText(legal, score.legal ? "legal win" : mcr ? "below the minimum" : "not a win: 诈胡");
  legal.className = `pill ${score.legal ? "ok" : "bad"}`;
  $("fans").replaceChildren(...score.fans.map((f) => el("tr", {},
    el("td", {}, f.zh, el("small", {}, f.en + (f.sets && f.sets.length
      ? " · " + f.sets.map((s) => s.join(" ")).join(" / ") : ""))),
    el("td", { class: "v" }, f.count > 1 ? `${f.value}×${f.count}` : String(f.value)),
  )));
  const s = score.settlement;
  setText($("settlement"), !mcr && s ? regionalSettlement(score) : s && s.payments
    ? `Settlement (${s.unit}): `
      + s.payments.map((p) => `${seatText(p.payer)} pays ${p.amount}`).join(", ")
      + (s.note ? ` — ${s.note}` : "")
    : "");
  $("result").hidden = false;
  // the header's total says a hand that is no legal win in its text (✗) as well as in red
  const head = $("head-total");
  head.textContent = `${score.legal ? "" : "✗ "}${score.total} ${unit}`;
  head.setAttribute("aria-label", score.legal ? `${score.total} ${unit}, legal win`
    : `${score.total} ${unit}, ${mcr ? "below the minimum: not a legal win" : "not a win"}`);
  head.className = `head-total${score.legal ? "" : " bad"}`;
  head.hidden = false;
}

/** A wait's fan if won on it, marked when that is no legal win (below the minimum). */
function waitCell(x) {
  if (!x) return el("td", { class: "v" }, "–");
  const legal = x.legal !== false;
  return el("td", { class: `v${legal ? "" : " bad"}` }, String(x.total),
    legal ? null : el("small", {}, "not legal"));
}

/** A hand that drew (a win's size, no win): each discard that leaves it ready with its
 * waits, best first (何切); or how far the best discards leave it from ready. */
function renderDiscards(d) {
  const box = $("waits");
  const ready = d.discards.filter((x) => x.ready);
  const best = (x) => Math.max(0, ...x.waits.flatMap((t) => [t.discard, t.self_drawn])
    .filter((s) => s && s.legal !== false).map((s) => s.total));
  if (ready.length) {
    box.replaceChildren(
      el("h2", {}, "A tile drawn — discard to be ready 何切"),
      el("p", { class: "hint" }, "Each discard that leaves the hand ready, best first: "
        + `what it then waits on (copies left) and the best legal ${totalUnit(d.rules)} on those.`),
      el("table", { class: "fans waits" },
        el("thead", {}, el("tr", {}, el("th", {}, "Discard"), el("th", {}, "Waits on"),
          el("th", { class: "v" }, "Best"))),
        el("tbody", {}, ready.map((x) => el("tr", {},
          el("td", {}, el("span", { class: "tile" }, x.tile, el("small", {}, state.zh[x.tile] || ""))),
          el("td", { class: "wrap" },
            x.waits.map((t) => `${tileText(t.tile)} (${t.remaining} left)`).join(", ")),
          el("td", { class: "v" }, best(x) ? String(best(x)) : "–"))))),
    );
  } else {
    const tiles = d.discards.filter((x) => x.shanten === d.shanten).map((x) => tileText(x.tile));
    box.replaceChildren(el("p", {}, `No discard leaves it ready: the best (${tiles.join(", ")}) `
      + `leave it ${d.shanten} tile change(s) from ready (向听).`));
  }
  box.hidden = false;
}

function renderWaits(w) {
  if (Array.isArray(w.discards)) { renderDiscards(w); return; }
  const box = $("waits");
  if (w.ready) {
    const legal = (x) => x && x.legal !== false;
    const anyLegal = w.waits.some((x) => legal(x.discard) || legal(x.self_drawn));
    const anyNot = w.waits.some((x) => !legal(x.discard) || !legal(x.self_drawn));
    box.replaceChildren(
      el("h2", {}, "Ready 听牌 — waits on"),
      el("p", { class: "hint" }, `The ${totalUnit(w.rules)} if the hand is won on each tile:`),
      el("table", { class: "fans waits" },
        el("thead", {}, el("tr", {}, el("th", {}, "Tile"), el("th", {}, "Left"),
          el("th", { class: "v" }, "On a discard"), el("th", { class: "v" }, "Self-drawn"))),
        el("tbody", {}, w.waits.map((x) => el("tr", {},
          el("td", {}, el("span", { class: "tile" }, x.tile, el("small", {}, state.zh[x.tile] || ""))),
          el("td", {}, `${x.remaining} left`),
          waitCell(x.discard), waitCell(x.self_drawn))))),
      // (replaceChildren writes a null as the text "null": leave the note out instead)
      ...(anyNot ? [el("p", { class: `hint${anyLegal ? "" : " bad"}` },
        (anyLegal ? "" : "None of these is a legal win. ")
        + "“not legal”: that win scores below the rules' minimum, so it is not a legal win.")]
        : []),
    );
  } else {
    box.replaceChildren(el("p", {}, `Not ready: ${w.shanten} tile change(s) from ready (向听).`));
  }
  box.hidden = false;
}

/** Each photo tile's place in the hand, as said to a screen reader (index → "meld 1
 * tile 2 of 3", "standing tile 5 of 11" in the layout's order, "winning tile", "flower 1
 * of 2", with "not played" under rules without flowers, "not in the hand 1 of 2"). */
function tilePlaces() {
  const groups = handGroups();
  const places = new Map();
  let k = 0;
  for (const idx of groups.melds) {
    if (!idx.length) continue;
    k += 1;
    idx.forEach((i, j) => places.set(i, `meld ${k} tile ${j + 1} of ${idx.length}`));
  }
  const counted = (list, what) => list.forEach((i, j) => places.set(i,
    list.length > 1 ? `${what} ${j + 1} of ${list.length}` : what));
  counted(groups.standing.filter((i) => state.tiles[i].role !== "winning"), "standing tile");
  counted(groups.standing.filter((i) => state.tiles[i].role === "winning"), "winning tile");
  counted(groups.flowers, "flower");
  if (!flowersPlayed()) {
    const info = state.ruleSets[$("rules").value] || {};
    for (const i of groups.flowers) {
      places.set(i, `${places.get(i)}, not played by ${info.title || $("rules").value}`);
    }
  }
  counted(state.tiles.map((t, i) => i).filter((i) => !places.has(i) && !state.tiles[i].removed),
    "not in the hand");
  return places;
}

/** Whether tile ``t`` was read unsure (drawn dashed, marked "?"). */
function isUnsure(t) {
  return typeof t.confidence === "number" && t.confidence < UNSURE;
}

/** Whether tile ``t`` holds another code than the detector read (a tap-correction, an
 * alternative used, or the recognizer's own correction): drawn red, marked "✎". */
function isCorrected(t) {
  return Boolean(t.changed || t.corrected);
}

/** The code a corrected tile was first read as. */
function readAs(t) {
  return t.changed ? t.orig : t.correctedFrom || t.orig;
}

/** The mark a tile's box and chip show besides their colour: "?" unsure, "✎" corrected. */
function tileMark(t) {
  return isCorrected(t) ? "✎" : isUnsure(t) ? "?" : "";
}

/** A tile's accessible name: its code and name in words (and number on the photo), its
 * place in the hand, and whether it was read unsure or corrected. */
function tileName(i, places) {
  const t = state.tiles[i];
  const number = state.numbered.has(i) ? ` #${i}` : "";
  const place = places.get(i) || t.role;
  const what = t.code === "back" ? "face-down tile" : `${t.code} ${tileWords(t.code)}`;
  const marks = (isCorrected(t) ? `, corrected from ${readAs(t)}` : "")
    + (isUnsure(t) && !t.changed ? ", unsure" : "");
  return `${what}${number}, ${place}${marks}: correct it`;
}

/** The photo's tiles as text chips in the hand's order: melds, standing tiles as the
 * row reads (the winning tile last), flowers (marked when the rules do not play them). */
function renderHandTiles() {
  const box = $("hand-tiles");
  const groups = handGroups();
  const places = tilePlaces();
  const unplayed = !flowersPlayed();
  const runs = [...groups.melds.filter((m) => m.length), groups.standing, groups.flowers];
  const chips = [];
  for (const run of runs) {
    run.forEach((i, k) => {
      const t = state.tiles[i];
      const off = unplayed && run === groups.flowers;
      const mark = tileMark(t);
      chips.push(el("button", {
        type: "button", "data-index": i,
        class: `tile${t.role === "winning" ? " win" : ""}${k === 0 && chips.length ? " gap" : ""}`
          + (off ? " unplayed" : "") + (isCorrected(t) ? " changed" : "")
          + (isUnsure(t) && !t.changed ? " unsure" : ""),
        title: off ? "not played by these rules: tap to correct" : `${t.role}: tap to correct`,
        "aria-label": tileName(i, places),
        onclick: () => openPicker(i, "hand-tiles"),
      }, t.code === "back" ? "▮" : t.code, el("small", {}, state.zh[t.code] || ""),
      mark ? el("span", { class: "mark", "aria-hidden": "true" }, mark) : null));
    });
  }
  box.replaceChildren(...chips);
  // the marks and the winning tile's border, said once under the chips
  const shown = runs.flat().map((i) => state.tiles[i]);
  const legend = [
    shown.some((t) => tileMark(t) === "?") ? "? read unsure: check it" : "",
    shown.some((t) => tileMark(t) === "✎") ? "✎ corrected" : "",
    chips.some((c) => c.classList.contains("win")) ? "thick amber border: the winning tile" : "",
  ].filter(Boolean);
  $("tiles-legend").textContent = legend.join(" · ");
  $("tiles-legend").hidden = !legend.length;
}

/** Score the hand in the text box (or its waits when it is one tile short). */
async function rescore() {
  const hand = $("hand").value.trim();
  const seq = ++state.scoreSeq;
  if (!hand) { clearResult(); return; }
  const unreadable = unreadableFields();
  if (unreadable) { clearResult(); showError(unreadable); return; }
  const body = { hand, ...context() };
  try {
    const score = await postJSON("/v1/score", body);
    if (seq !== state.scoreSeq) return;
    clearResult();
    renderScore(score);
  } catch (err) {
    if (seq !== state.scoreSeq) return;
    clearResult();
    showError(errorText(err));
    if (err.code === "invalid_hand") {
      const { self_drawn, last_of_kind, kong, last_wall_tile, ...waitCtx } = body;
      try {
        const w = await postJSON("/v1/waits", waitCtx);
        if (seq === state.scoreSeq) renderWaits(w);
      } catch (_) { /* the score error already says what is wrong */ }
    }
  }
}

/* ------------------------------------------------------------------ photo */
/** The photo to send: big photos re-encoded at MAX_SIDE so phones upload ~300 kB instead
 * of ~5 MB (createImageBitmap applies the EXIF orientation, like the server does), small
 * ones as they are. ``null`` when this browser cannot decode the file. */
async function downscale(file) {
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.size < 4 * 1024 * 1024 && /jpe?g|png|webp/.test(file.type)) {
      bitmap.close();
      return file;
    }
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.9));
    return blob || file;
  } catch (_) {
    return null;
  }
}

/** Whether ``file`` is a HEIC/HEIF (or AVIF) photo, what iPhones and many Android phones
 * save: by its type, its name, or its first bytes (an ISO-BMFF ``ftyp`` box with a HEIF
 * brand), as a gallery may hand it over with neither. */
async function isHeic(file) {
  if (/hei[cf]|avif/i.test(file.type || "") || /\.(hei[cf]|avif)$/i.test(file.name || "")) {
    return true;
  }
  try {
    const head = new Uint8Array(await file.slice(0, 12).arrayBuffer());
    const text = String.fromCharCode(...head.slice(4, 12));
    return /^ftyp(hei[cfmsx]|hev[cx]|mif1|msf1|avi[fs])$/.test(text);
  } catch (_) {
    return false;
  }
}

/* What a phone user can do about a HEIC photo. */
const HEIC_ADVICE = "Use “Take a photo” (it gives a JPEG), or choose a JPEG copy of the "
  + "photo: on an iPhone, set Settings → Camera → Formats → Most Compatible (or share the "
  + "photo as JPEG); on Android, turn off the camera's high-efficiency (HEIF) pictures; then "
  + "take the photo again.";

/** Why a photo this browser cannot decode (``file``) is not sent, or "" to send it (the
 * server may read it: a TIFF): a HEIC photo, or one over the server's upload limit, is
 * said here in words a phone user can act on, before any byte goes over the connection. */
async function unsendable(file) {
  const mb = (n) => `${Number((n / 1024 / 1024).toFixed(1))} MB`;
  if (await isHeic(file)) {
    return `This photo is in HEIC format, which this browser cannot read, so it was not sent. `
      + HEIC_ADVICE;
  }
  if (file.size > MAX_UPLOAD) {
    return `This photo (${mb(file.size)}) is larger than the server takes (${mb(MAX_UPLOAD)}), `
      + "and this browser cannot shrink it, so it was not sent. Use “Take a photo”, or "
      + "choose a smaller JPEG photo.";
  }
  return "";
}

function setBusy(on) {
  const cancelFocused = document.activeElement === $("busy-cancel");
  $("busy").hidden = !on;
  $("busy-text").textContent = "Reading the tiles…";
  $("photo-card").setAttribute("aria-busy", String(on));
  if (on) $("error").hidden = true; // the last photo's (or hand's) error is not this one's
  if (!on && cancelFocused) focusAfterBusy();
}

/** Read a photo. A newer photo supersedes one still being read (its upload is aborted and
 * its answer, if any, ignored); busy shows until the latest upload ends. */
async function onPhoto(file, again = false) {
  if (!file) return;
  state.keptPhoto = null; // a newer photo replaces one kept after a refusal
  dropRetry(); // (or it is that photo, sent again)
  const seq = ++state.photoSeq;
  if (state.upload) state.upload.abort("superseded");
  const upload = new AbortController();
  state.upload = upload;
  const hadPhoto = state.rec !== null;
  setBusy(true);
  const limit = state.uploadTimeoutMs;
  const timer = setTimeout(() => upload.abort("timeout"), limit);
  const slow = setTimeout(() => {
    if (seq === state.photoSeq) {
      $("busy-text").textContent = "Still reading… the connection or the server is slow.";
    }
  }, Math.min(15000, limit / 2));
  let sent = null; // the win context the photo goes with
  try {
    const unreadable = unreadableFields();
    if (unreadable) throw Object.assign(new Error(unreadable), { code: "unreadable_field" });
    const shrunk = await downscale(file);
    if (upload.signal.aborted) throw new Error("aborted");
    const refused = shrunk ? "" : await unsendable(file);
    if (refused) throw Object.assign(new Error(refused), { code: "unsendable" });
    const blob = shrunk || file;
    const form = new FormData();
    form.append("image", blob, file.name || "photo.jpg");
    const ctx = context();
    sent = ctx;
    const stepped = state.flowers; // the stepper as the photo went (the last hand's count)
    // no count is sent: the flowers a photo shows are read from it, and the stepper is for
    // flowers it does not show, counted after the reading through /v1/score (the total of
    // /v1/recognize's ``flowers`` and of tilecam recognize --flowers for such a photo)
    for (const [k, v] of Object.entries(ctx)) {
      if (k === "flowers") continue;
      form.append(k, typeof v === "object" ? JSON.stringify(v) : String(v));
    }
    const rec = await api("/v1/recognize", { method: "POST", body: form, signal: upload.signal });
    if (seq !== state.photoSeq) return; // a newer photo was chosen meanwhile
    if (!rec || typeof rec !== "object") throw new Error("the server's answer is empty");
    if (state.photo) URL.revokeObjectURL(state.photo.url);
    state.photo = { url: URL.createObjectURL(blob), blob, name: file.name || "photo.jpg" };
    state.readWithFlowers = (state.ruleSets[ctx.rules] || {}).flowers !== false;
    // a control changed while the photo was read: score with what the controls show now;
    // a flower count stepped meanwhile is this photo's, kept (else 0: the last hand's)
    const counted = state.flowers !== stepped ? state.flowers : 0;
    showRecognition(rec, contextKey(context()) !== contextKey(ctx) || counted > 0, counted);
  } catch (err) {
    if (seq !== state.photoSeq) return;
    const why = upload.signal.aborted ? upload.signal.reason : null;
    if (why === "cancel") {
      // kept, as after a failure: the user may have given up on a slow connection
      offerRetry(file, 0);
      sayPhoto("Cancelled. The photo is kept: “Send the photo again” sends it.");
      return;
    }
    const kept = hadPhoto ? " The previous photo and its reading are still shown." : "";
    // (not named ``again``: that is this function's parameter, read below)
    let resend = "";
    if (err.code === "unreadable_field") { // (a resend too: the photo is not lost with it)
      resend = " The photo is kept: once the number is mended, “Send the photo again” sends it.";
    } else if (retryable(err, why)) {
      resend = " The photo is kept: “Send the photo again” sends it"
        + (err.retryAfter ? " once the wait is over." : ".");
    }
    if (resend) offerRetry(file, why === "timeout" ? 0 : err.retryAfter || 0);
    if (why === "timeout") {
      showError(`Photo: no answer from the server in ${Math.round(limit / 1000)} s: `
        + "the connection or the server may be down. Try again." + resend + kept);
    } else if (err.code === "invalid_context" && !again && !neededText() && sent
               && contextKey(context()) !== contextKey(sent)) {
      // refused for a context the controls no longer show (the indicator chosen while it
      // was read): read it again at once with what they show now (once)
      onPhoto(file, true);
    } else if (err.code === "invalid_context") {
      // e.g. Zhenjiang before its 百搭 is chosen: keep the photo, read it once that is set
      state.keptPhoto = file;
      const missing = neededText();
      showError(`Photo: ${errorText(err, true)} `
        + (missing ? `Choose ${missing} under Win, then the photo is read again.`
          : "Change the win's details under Win, then the photo is read again.") + kept);
      // to the field, unless the user is busy in another one meanwhile
      const active = document.activeElement;
      if (missing && (!active || active === document.body || active.type === "file")) {
        neededInputs()[0].focus();
      }
    } else if (err.code === "unsendable") {
      showError(`${err.message}${kept}`);
    } else if (err.code === "unsupported_image" && /\bHEI[CF]\b/i.test(err.message)) {
      // a HEIC the page did not tell by its type, name or first bytes: the server's
      // "send a JPEG" is advice for a program, not for a phone
      showError(`Photo: HEIC photos cannot be read. ${HEIC_ADVICE}${kept}`);
    } else {
      showError(`Photo: ${errorText(err, true)}${resend}${kept}`);
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(slow);
    if (seq === state.photoSeq) {
      setBusy(false);
      state.upload = null;
    }
    $("photo").value = "";
    $("photo-pick").value = "";
  }
}

function meldsOf(rec) {
  // Recognition.to_dict() melds list their tiles as detection indices into rec.tiles.
  return (rec.melds || []).map((m) => ({
    notation: m.notation,
    kind: m.kind,
    claimed_from: m.claimed_from ?? null,
    claimed_index: m.claimed_index ?? null,
    added: Boolean(m.added),
    tiles: m.detections || [],
  }));
}

/** Show the recognizer's answer. ``stale``: the win context changed while the photo
 * was read, so the answer's score is for other controls: score the hand again.
 * ``flowers``: the stepper's count for this photo (flowers it does not show, stepped
 * while it was read; a photo that shows flowers counts its own). */
function showRecognition(rec, stale = false, flowers = 0) {
  state.scoreSeq++; // a score answer still on its way is for the hand shown before
  state.rec = rec;
  state.detached = false;
  state.altHand = null;
  state.altButton = null;
  // a "correction" that keeps the code (a box split over two tiles) changes nothing
  const real = (rec.corrections || []).filter((c) => c.from !== c.to);
  const corrected = new Map(real.map((c) => [c.tile, c.from]));
  state.tiles = (rec.tiles || []).map((t, i) => ({
    ...t, orig: t.code, changed: false, removed: false, corrected: corrected.has(i),
    correctedFrom: corrected.get(i) ?? null,
  }));
  state.melds = meldsOf(rec);
  state.winningTile = rec.winning_tile || null;
  // the notes name tiles by their number in the answer ("tile 15", from 0): the photo
  // shows that number on those tiles' boxes, so the two agree
  state.numbered = new Set(real.map((c) => c.tile));
  for (const n of rec.notes || []) {
    for (const m of String(n).matchAll(/\btile (\d+)\b/g)) {
      if (Number(m[1]) < state.tiles.length) state.numbered.add(Number(m[1]));
    }
  }
  const size = rec.image_size || null;
  const img = $("shot");
  const notes = [];
  img.onload = () => {
    const w = size ? size[0] : img.naturalWidth;
    const h = size ? size[1] : img.naturalHeight;
    $("overlay").setAttribute("viewBox", `0 0 ${w} ${h}`);
    $("stage").hidden = false;
    $("tiles-hint").hidden = state.tiles.length === 0;
    drawBoxes();
  };
  img.onerror = () => {
    // e.g. a TIFF: the server read it, this browser cannot draw it
    $("stage").hidden = true;
    $("tiles-hint").hidden = true;
    $("notes").prepend(el("li", { class: "bad" }, "This browser cannot show this photo "
      + "(its format), so its tiles cannot be tapped on it. The reading below is the "
      + "server's: correct a tile with the chips under the hand box, or type the hand."));
  };
  $("stage").hidden = true;
  $("overlay").replaceChildren();
  img.src = state.photo.url;
  if (!state.tiles.length) {
    notes.push(el("li", {}, "No tiles found. Try more light, less glare, tiles filling the photo."));
  }
  if (state.tiles.length && typeof rec.hand_confidence === "number") {
    // calibrated on real photos: the share of such readings that were exactly right
    const pct = Math.round(rec.hand_confidence * 100);
    notes.push(el("li", {}, `About ${pct}% of readings like this one get every tile right`
      + (rec.hand_confidence < 0.7 ? ": check the tiles marked unsure, and any missed, "
        + "and tap any that are wrong." : ".")));
    // the same up to what the rules score alike (MCR: which flower or season it is)
    const sc = rec.score_confidence;
    if (typeof sc === "number" && sc - rec.hand_confidence >= 0.05) {
      notes.push(el("li", {}, `About ${Math.round(sc * 100)}% get every tile right as far `
        + "as this score can tell: which flower or season a bonus tile is is the less sure "
        + "part, and these rules score it less or not at all."));
    }
  } else if (state.tiles.length && typeof rec.reading_confidence === "number"
      && rec.reading_confidence < 0.9) {
    const pct = Math.round(rec.reading_confidence * 100);
    notes.push(el("li", {}, `The model is ${pct}% sure of every tile: check the tiles `
      + "marked unsure and tap any that are wrong."));
  }
  for (const c of real) notes.push(el("li", {}, describeCorrection(c)));
  for (const n of rec.notes || []) notes.push(el("li", {}, n));
  if (rec.unscorable) notes.push(el("li", {}, `Cannot score: ${rec.unscorable}`));
  for (const a of rec.alternatives || []) {
    if (!a.hand) continue;
    // ratio = P(chosen reading) / P(this reading)
    const rel = a.ratio > 0 ? 1 / a.ratio : 0;
    const likely = rel >= 1 ? `${rel.toFixed(1)}× as likely per the detector`
      : `${Math.round(rel * 100)}% as likely`;
    notes.push(el("li", { class: "alternative" }, `Also possible: ${a.hand}`
      + (a.score !== null && a.score !== undefined ? ` (${a.score} fan)` : "")
      + (a.hand === rec.hand ? " — the same hand, read another way"
        : a.same_score ? " — the same score: only which flower or season differs" : "")
      + (a.winning === false ? " (not a win)" : "") + ` — ${likely} `,
    el("button", {
      type: "button", class: "ghost small", "aria-label": `use the reading ${a.hand}`,
      "data-hand": a.hand,
      onclick: (e) => useAlternative(a, e.currentTarget),
    }, "use")));
  }
  // which model read the photo (name@version): what a referee quotes about a reading
  if (rec.model) notes.push(el("li", { class: "model" }, `Read by model ${rec.model}.`));
  $("notes").replaceChildren(...notes);
  handNote("");
  $("hand").value = rec.hand || handFromTiles();
  setFlowers(flowers);
  applyFlowerRule(); // rules without flowers chosen while the photo was read
  markPhotoHand();
  renderHandTiles();
  const asRead = !stale && $("hand").value === (rec.hand || "");
  if (asRead && rec.score) { clearResult(); renderScore(rec.score); }
  else if (asRead && (rec.waits || rec.discards)) {  // discards: a hand that drew
    clearResult(); if (rec.unscorable) showError(rec.unscorable);
    renderWaits(rec.waits || rec.discards);
  } else rescore();
}

function describeCorrection(c) {
  const p = (x) => Number(x).toFixed(2);
  return `Tile #${c.tile} read as ${c.to} instead of ${c.from} `
    + `(p ${p(c.p_to)} vs ${p(c.p_from)}): the first reading was not a possible hand.`;
}

/** "use" on a close alternative: its tile changes (``corrections``, from the detector's
 * first reading, as the chosen reading's are) go onto the photo's tiles, so the boxes,
 * the chips and any later tap-correction keep it. When the tiles cannot be made to give
 * the alternative's hand, the hand box takes it and says that a tap starts again from
 * the tiles as read. */
function useAlternative(a, button) {
  const rec = state.rec;
  const base = state.tiles.map((t) => t.orig);
  const candidates = [];
  if (Array.isArray(a.corrections)) {
    const undone = [...base];
    for (const c of rec.corrections || []) if (c.tile < undone.length) undone[c.tile] = c.from;
    const applied = [...base];
    for (const c of a.corrections) {
      if (c.tile < base.length) { undone[c.tile] = c.to; applied[c.tile] = c.to; }
    }
    candidates.push(undone, applied);
  }
  const saved = state.tiles.map((t) => ({ code: t.code, changed: t.changed, removed: t.removed }));
  let fits = null;
  for (const codes of candidates) {
    state.tiles.forEach((t, i) => {
      t.code = codes[i]; t.changed = codes[i] !== t.orig; t.removed = false;
    });
    if (sameHand(handFromTiles(), a.hand)) { fits = codes; break; }
  }
  if (fits) {
    state.detached = false;
    handNote("Using the alternative reading: its tiles are marked on the photo; "
      + "tap a tile to correct it further.");
  } else {
    state.tiles.forEach((t, i) => Object.assign(t, saved[i]));
    state.detached = true;
    handNote("The hand box holds the alternative reading; the photo still shows the first "
      + "one. A tap-correction on the photo starts again from the tiles shown there.");
  }
  state.altHand = a.hand;
  state.altButton = button || null;
  $("hand").value = a.hand;
  applyFlowerRule(); // its flowers out under rules without them
  markPhotoHand();
  syncAltButtons();
  drawBoxes();
  renderHandTiles();
  rescore();
}

/** The alternative used last says "in use" (and cannot be pressed) while the hand box
 * holds its hand; any other, or that one once the hand box holds another hand, "use". */
function syncAltButtons() {
  const text = $("hand").value;
  const played = flowersPlayed();
  for (const b of $("notes").querySelectorAll("li.alternative button")) {
    const alt = played ? b.dataset.hand : String(b.dataset.hand).replace(/[1-8]+f/g, "");
    const inUse = b === state.altButton && sameHand(text, alt);
    b.disabled = inUse;
    b.textContent = inUse ? "in use" : "use";
  }
}

function drawBoxes() {
  const svg = $("overlay");
  const vb = svg.viewBox.baseVal;
  const font = Math.max(14, Math.round((vb && vb.width ? vb.width : 1000) / 45));
  svg.replaceChildren();
  const places = tilePlaces();
  // drawn (so reached by Tab) in the hand's order: melds, standing row, flowers, the rest
  const groups = handGroups();
  const first = [...groups.melds.flat(), ...groups.standing, ...groups.flowers];
  const seen = new Set(first);
  const order = [...first, ...state.tiles.map((_, i) => i).filter((i) => !seen.has(i))];
  order.forEach((i) => {
    const t = state.tiles[i];
    if (t.removed) return;
    const [x1, y1, x2, y2] = t.box;
    const cls = [t.role || "standing", isCorrected(t) ? "changed" : "",
      isUnsure(t) && !t.changed ? "unsure" : ""].join(" ");
    const number = state.numbered.has(i) ? ` #${i}` : "";
    svg.append(el("rect", {
      x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: 4, class: cls,
      "data-index": i, tabindex: 0, role: "button",
      "aria-label": tileName(i, places),
      onkeydown: (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openPicker(i); }
      },
    }));
    // the mark ("?" unsure, "✎" corrected) says in the label what the box's dash or colour does
    svg.append(el("text", { x: x1 + 2, y: Math.max(font, y1 - 4), "font-size": font, "data-index": i },
      t.code + tileMark(t) + number));
  });
}

/** The tile nearest to a tap on the photo (tiles are small on a phone screen, so a
 * tap need not hit the box itself: up to one tile height away counts). */
function tileAt(evt) {
  const svg = $("overlay");
  const ctm = svg.getScreenCTM();
  if (!ctm) return null;
  const p = svg.createSVGPoint();
  p.x = evt.clientX;
  p.y = evt.clientY;
  const { x, y } = p.matrixTransform(ctm.inverse());
  let best = null;
  let bestDist = Infinity;
  state.tiles.forEach((t, i) => {
    if (t.removed) return;
    const [x1, y1, x2, y2] = t.box;
    const dx = Math.max(x1 - x, 0, x - x2);
    const dy = Math.max(y1 - y, 0, y - y2);
    const d = Math.hypot(dx, dy) / Math.max(1, Math.max(x2 - x1, y2 - y1));
    if (d < bestDist) { bestDist = d; best = i; }
  });
  return bestDist <= 1 ? best : null;
}

/* ------------------------------------------------------------------ picker */
function tileButton(code, onPick, current, first = false) {
  return el("button", {
    type: "button", "data-code": code,
    // each suit, the honours and the bonus tiles start a row of their own
    class: [code === current ? "current" : "", first ? "row-start" : ""].join(" ").trim() || null,
    "aria-current": code === current ? "true" : null,
    onclick: () => onPick(code),
  }, code === "back" ? "▮" : code, el("small", {}, state.zh[code] || ""));
}

/** Where the tile picker was opened from: a box on the photo ("overlay") or a chip under
 * the hand box ("hand-tiles"), for the tile ``index``, and the tiles that follow it there. */
function pickerOrigin(index, where) {
  const order = [...$(where).querySelectorAll("[data-index]:not(text)")]
    .map((e) => Number(e.dataset.index));
  return { where, index, after: order.slice(order.indexOf(index) + 1) };
}

/** After a correction every box and chip is drawn again: focus goes back to the tile
 * corrected (or, when it was taken out as "not a tile", to the next one there, else the
 * hand box), where the picker was opened from; on the chips when the photo is not shown. */
function focusAfterEdit(origin) {
  if (!origin) return;
  const tile = state.tiles[origin.index];
  const want = tile && !tile.removed ? [origin.index]
    : origin.after.filter((i) => !state.tiles[i].removed);
  const places = origin.where === "overlay" && !$("stage").hidden
    ? ["overlay", "hand-tiles"] : ["hand-tiles"];
  for (const where of places) {
    for (const i of want) {
      const target = $(where).querySelector(`[data-index="${i}"]:not(text)`);
      if (target) { target.focus(); return; }
    }
  }
  $("hand").focus();
}

function openPicker(index, where = "overlay") {
  const tile = state.tiles[index];
  const dialog = $("picker");
  const origin = pickerOrigin(index, where);
  const pick = (code) => {
    dialog.close();
    if (code !== tile.code) {
      tile.code = code;
      tile.changed = code !== tile.orig;
      afterEdit(origin);
    }
  };
  const number = state.numbered.has(index) ? ` (#${index} on the photo)` : "";
  setText($("picker-title"),
    `Which tile is this? Read as ${tileText(tile.code)}${number}`);
  const alts = (tile.topk || []).map((a) => a.code).filter((c) => c !== tile.code).slice(0, 4);
  $("picker-top").replaceChildren(...alts.map((c) => tileButton(c, pick, tile.code)));
  const starts = new Set(["1m", "1p", "1s", "E", "1f"]);
  $("picker-grid").replaceChildren(...state.classes.map((c) => tileButton(c, pick, tile.code,
    starts.has(c))));
  $("picker-remove").onclick = () => { dialog.close(); tile.removed = true; afterEdit(origin); };
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

/** Redraw after a tap-correction (``origin``: where the picker was opened, see
 * :func:`pickerOrigin`), score again, and put focus back on the tile. */
function afterEdit(origin = null) {
  drawBoxes();
  const typed = !state.detached && !holdsPhotoHand() && $("hand").value.trim()
    ? $("hand").value.trim() : "";
  if (state.detached) {
    handNote("The correction started again from the tiles on the photo: the alternative "
      + "reading put in the hand box is no longer used.");
    state.detached = false;
    state.altButton = null;
  } else if (typed) {
    // a tap corrects the photo's tiles: say so, and keep what the user had typed
    handNote(`The hand box held a hand you typed (${typed}): it now holds the photo's `
      + "tiles with this correction.");
  }
  $("hand").value = handFromTiles();
  markPhotoHand();
  syncAltButtons();
  syncFlowerStepper();
  renderHandTiles();
  focusAfterEdit(origin);
  rescore();
}

/* ------------------------------------------------------------------ start */
/** The header's status: the detector is loaded ("camera ready"), or not (the hand can
 * still be typed), or the server was not reached (the connection, not the model). */
function checkReady() {
  api("/readyz").then(
    () => {
      $("ready").textContent = "camera ready"; $("ready").className = "pill ok";
      $("ready").removeAttribute("title");
    },
    (err) => {
      // (a page that is not the service's JSON is a proxy's: the server is not reached)
      $("ready").textContent = err.code === "network" || err.code === "not_json"
        ? "server not reached" : "no model: type the hand";
      $("ready").className = "pill bad";
      $("ready").title = err.message;
    },
  );
}

async function init() {
  buildWindButtons("seat_wind");
  buildWindButtons("prevalent_wind");
  for (const id of ["photo", "photo-pick"]) {  // the camera, or the phone's picker
    $(id).addEventListener("change", (e) => onPhoto(e.target.files[0]));
  }
  $("overlay").addEventListener("click", (e) => {
    const i = tileAt(e);
    if (i !== null) openPicker(i);
  });
  $("score-btn").addEventListener("click", rescore);
  $("hand").addEventListener("keydown", (e) => { if (e.key === "Enter") rescore(); });
  $("hand").addEventListener("input", () => {
    // the user's own hand now: a photo kept after a refusal is not read over it later
    state.keptPhoto = null;
    state.takenFlowers = null;
    handNote(""); syncFlowerStepper(); syncAltButtons();
  });
  $("rules").addEventListener("change", onRulesChange);
  $("photo-again-btn").addEventListener("click", () => {
    if (!state.retryPhoto) return;
    onPhoto(state.retryPhoto); // (hides this button at once: see dropRetry)
    // focus on the Cancel of its reading, not lost with the button to the page's start
    if (!$("busy").hidden) $("busy-cancel").focus();
  });
  $("busy-cancel").addEventListener("click", () => {
    if (state.upload) state.upload.abort("cancel");
  });
  $("rule-context").addEventListener("change", () => { markNeeded(); contextChanged(); });
  $("rule-settings").addEventListener("change", contextChanged);
  $("version").addEventListener("change", contextChanged);
  for (const id of ["self_drawn", "last_of_kind", "kong", "last_wall_tile"]) {
    $(id).addEventListener("change", contextChanged);
  }
  $("flowers-minus").addEventListener("click", () => { setFlowers(state.flowers - 1); rescore(); });
  $("flowers-plus").addEventListener("click", () => { setFlowers(state.flowers + 1); rescore(); });

  checkReady();
  // a phone back on the network: say again whether the camera can be used
  window.addEventListener("online", checkReady);
  try {
    const doc = await api("/v1/rules");
    state.zh = doc.tiles.zh;
    state.classes = doc.tiles.classes;
    for (const r of doc.rule_sets) state.ruleSets[r.name] = r;
    $("rules").replaceChildren(...doc.rule_sets.map((r) => el("option", {
      value: r.name, selected: r.name === doc.default,
    }, r.title || r.name)));
    fillVersions();
    fillRuleFields();
    applyFlowerRule();
  } catch (err) {
    showError(`Cannot load the rule sets: ${err.message}`);
  }
  document.body.dataset.ready = "1";
}

init();
