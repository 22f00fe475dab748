/* tilecam phone page: photo → /v1/recognize → boxes on the photo → tap to correct →
 * re-score with /v1/score. Plain browser JavaScript, no build step. */
"use strict";

const WINDS = ["E", "S", "W", "N"];
const WIND_ZH = { E: "东", S: "南", W: "西", N: "北" };
const MAX_SIDE = 1600; // photos are downscaled to this long side before upload (pixels)

const state = {
  zh: {},            // tile code → Chinese name
  classes: [],       // the 43 detector classes
  ruleSets: {},      // name → describe() of GET /v1/rules
  seat_wind: "E",
  prevalent_wind: "E",
  flowers: 0,
  photo: null,       // {url, width, height}
  tiles: [],         // recognized tiles: {code, box, role, confidence, topk, meld, changed, removed}
  melds: [],         // [{notation, claimed_from, claimed_index, added, tiles: [tile indices]}]
  winningTile: null, // the winning tile the recognizer chose when none was set apart
  scoreSeq: 0,       // ignore answers of superseded requests
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
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

/* ------------------------------------------------------------------ HTTP */
async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new Error(`cannot reach the server (${err.message})`);
  }
  return readAnswer(response); // http.js
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

/** Codes in order → compact notation (["1m","2m","E"] → "12mE"). */
function formatTiles(codes) {
  let out = "";
  let digits = "";
  let suit = "";
  for (const c of codes) {
    if (/^[1-9][mps]$/.test(c)) {
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

/** The hand in notation from the (corrected) tiles and the layout's melds.
 * Melds none of whose tiles changed keep the recognizer's notation (it knows the kind
 * of a kong shown all face down); changed ones are rebuilt from their tiles. */
function handFromTiles() {
  const live = (i) => !state.tiles[i].removed;
  const parts = [];
  const inMeld = new Set();
  for (const m of state.melds) {
    m.tiles.forEach((i) => inMeld.add(i));
    const idx = m.tiles.filter(live);
    if (!idx.length) continue;
    const touched = m.tiles.some((i) => state.tiles[i].changed || state.tiles[i].removed);
    if (!touched && m.notation) { parts.push(m.notation); continue; }
    const codes = idx.map((i) => state.tiles[i].code);
    const face = codes.filter((c) => c !== "back");
    // a concealed kong shows backs: its kind is the face-up tiles' kind
    const filled = codes.map((c) => (c === "back" && face.length ? face[0] : c));
    const kind = filled.length === 4 ? "kong"
      : (new Set(filled).size === 1 ? "pung" : "chow");
    parts.push(formatMeld(kind, filled, kind === "chow" ? 1 : m.claimed_from,
      kind === "chow" ? m.claimed_index : null, kind === "kong" && m.added));
  }
  const standing = [];
  const flowers = [];
  let winning = null;
  state.tiles.forEach((t, i) => {
    if (t.removed || inMeld.has(i) || t.role === "ignored" || t.code === "back") return;
    if (/^[1-8]f$/.test(t.code)) flowers.push(t.code);
    else if (t.role === "winning") winning = t.code;
    else standing.push(t.code);
  });
  if (winning === null && state.winningTile) {
    // the winning tile was not set apart: the recognizer chose the best one
    const k = standing.lastIndexOf(state.winningTile);
    if (k >= 0) winning = standing.splice(k, 1)[0];
  }
  let text = parts.join("") + formatTiles(standing);
  if (winning !== null) text += winning;
  return text + flowers.sort(tileSort).join("");
}

/** Flowers written in the hand text (``1f``-``8f``), counted. */
function flowersInHand(text) {
  let n = 0;
  for (const m of text.matchAll(/([1-8]+)f/g)) n += m[1].length;
  return n;
}

function syncFlowerStepper() {
  // flowers listed in the hand count themselves; the stepper is for flowers not shown
  const listed = flowersInHand($("hand").value);
  $("flowers-minus").disabled = $("flowers-plus").disabled = listed > 0;
  if (listed > 0) setFlowers(listed);
}

/* ------------------------------------------------------------------ context */
function context() {
  const rules = $("rules").value || "mcr";
  const ctx = {
    rules,
    self_drawn: $("self_drawn").checked,
    last_of_kind: $("last_of_kind").checked,
    kong: $("kong").checked,
    last_wall_tile: $("last_wall_tile").checked,
    seat_wind: state.seat_wind,
    prevalent_wind: state.prevalent_wind,
    flowers: flowersInHand($("hand").value) > 0 ? 0 : state.flowers,
  };
  const version = $("version").value;
  if (version && !$("version-field").hidden) ctx.version = version;
  const ruleContext = collectFields($("rule-context"));
  if (Object.keys(ruleContext).length) ctx.rule_context = ruleContext;
  const settings = collectFields($("rule-settings"));
  if (Object.keys(settings).length) ctx.settings = settings;
  return ctx;
}

function setFlowers(n) {
  state.flowers = Math.max(0, Math.min(8, n));
  $("flowers").textContent = String(state.flowers);
}

function buildWindButtons(id) {
  const box = $(id);
  box.replaceChildren(...WINDS.map((w) => el("button", {
    type: "button", role: "radio", "data-wind": w, "aria-checked": String(state[id] === w),
    onclick: () => {
      state[id] = w;
      for (const b of box.children) b.setAttribute("aria-checked", String(b.dataset.wind === w));
      rescore();
    },
  }, `${w} ${WIND_ZH[w]}`)));
}

const TILE_FIELDS = new Set(["gold", "indicator", "wild"]);

/** One input for a rule set's setting or context field (see GET /v1/rules). */
function fieldInput(name, spec) {
  const common = { "data-name": name, "data-default": JSON.stringify(spec.default), title: spec.description };
  let input;
  if (spec.choices) {
    input = el("select", common, spec.choices.map((c) => el("option", {
      value: JSON.stringify(c), selected: c === spec.default,
    }, c === "" ? "—" : String(c))));
  } else if (TILE_FIELDS.has(name)) {
    input = el("select", common, el("option", { value: "null" }, "—"),
      state.classes.filter((c) => !/f$/.test(c) && c !== "back").map((c) => el("option", {
        value: JSON.stringify(c), selected: c === spec.default,
      }, `${c} ${state.zh[c] || ""}`)));
  } else if (typeof spec.default === "boolean") {
    input = el("input", { ...common, type: "checkbox", checked: spec.default });
    return el("label", { class: "toggle" }, input, ` ${name.replace(/_/g, " ")}`);
  } else if (typeof spec.default === "number") {
    const whole = spec.type === "integer";  // the scorer refuses 1.5 chips
    input = el("input", {
      ...common, type: "number", step: whole ? "1" : "any", min: spec.minimum, max: spec.maximum,
      value: String(spec.default), inputmode: whole ? "numeric" : "decimal",
    });
  } else {
    input = el("input", { ...common, type: "text", value: spec.default ?? "" });
  }
  return el("label", { class: "field" }, name.replace(/_/g, " "), input,
    el("small", { class: "hint" }, spec.description));
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
  const info = state.ruleSets[$("rules").value] || {};
  const ctx = Object.entries(info.context || {});
  $("rule-context").replaceChildren(...ctx.map(([n, spec]) => fieldInput(n, spec)));
  const settings = Object.entries(info.settings || {}).filter(([n]) => n !== "version");
  $("rule-settings").replaceChildren(...settings.map(([n, spec]) => fieldInput(n, spec)));
  $("settings-box").hidden = settings.length === 0;
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
  $("error").textContent = message;
  $("error").hidden = false;
}

function clearResult() {
  $("head-total").hidden = true;
  $("error").hidden = true;
  $("result").hidden = true;
  $("waits").hidden = true;
}

function renderScore(score) {
  $("total").textContent = String(score.total);
  const legal = $("legal");
  legal.textContent = score.legal ? "legal win" : "below the minimum";
  legal.className = `pill ${score.legal ? "ok" : "bad"}`;
  $("fans").replaceChildren(...score.fans.map((f) => el("tr", {},
    el("td", {}, f.zh, el("small", {}, f.en + (f.sets && f.sets.length
      ? " · " + f.sets.map((s) => s.join(" ")).join(" / ") : ""))),
    el("td", { class: "v" }, f.count > 1 ? `${f.value}×${f.count}` : String(f.value)),
  )));
  const s = score.settlement;
  $("settlement").textContent = s && s.payments
    ? `Settlement (${s.unit}): ` + s.payments.map((p) => `${p.payer} pays ${p.amount}`).join(", ")
      + (s.note ? ` — ${s.note}` : "")
    : "";
  $("result").hidden = false;
  const head = $("head-total");
  head.textContent = `${score.total} fan`;
  head.className = `head-total${score.legal ? "" : " bad"}`;
  head.hidden = false;
}

function renderWaits(w) {
  const box = $("waits");
  if (w.ready) {
    box.replaceChildren(el("h2", {}, "Ready 听牌 — waits on"), el("div", { class: "hand-tiles" },
      w.waits.map((x) => el("span", { class: "tile" }, x.tile,
        el("small", {}, `${x.remaining} left`),
        el("small", {}, x.discard ? `${x.discard.total} / ${x.self_drawn ? x.self_drawn.total : "–"}` : "")))));
  } else {
    box.replaceChildren(el("p", {}, `Not ready: ${w.shanten} tile change(s) from ready (向听).`));
  }
  box.hidden = false;
}

const ROLE_ORDER = { standing: 0, winning: 1, meld: 2, flower: 3 };

/** The photo's tiles as text chips: standing, the winning tile, melds, flowers. */
function renderHandTiles() {
  const box = $("hand-tiles");
  const live = state.tiles
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => !t.removed && t.role in ROLE_ORDER)
    .sort((a, b) => ROLE_ORDER[a.t.role] - ROLE_ORDER[b.t.role] || a.i - b.i);
  let last = null;
  box.replaceChildren(...live.map(({ t, i }) => {
    const gap = last !== null && t.role !== last;
    last = t.role;
    return el("button", {
      type: "button",
      class: `tile${t.role === "winning" ? " win" : ""}${gap ? " gap" : ""}`,
      title: `${t.role}: tap to correct`,
      onclick: () => openPicker(i),
    }, t.code === "back" ? "▮" : t.code, el("small", {}, state.zh[t.code] || ""));
  }));
}

/** Score the hand in the text box (or its waits when it is one tile short). */
async function rescore() {
  const hand = $("hand").value.trim();
  const seq = ++state.scoreSeq;
  if (!hand) { clearResult(); return; }
  const body = { hand, ...context() };
  try {
    const score = await postJSON("/v1/score", body);
    if (seq !== state.scoreSeq) return;
    clearResult();
    renderScore(score);
  } catch (err) {
    if (seq !== state.scoreSeq) return;
    clearResult();
    showError(err.message);
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
async function downscale(file) {
  // Re-encode big photos at MAX_SIDE so phones upload ~300 kB instead of ~5 MB.
  // createImageBitmap applies the EXIF orientation, like the server does.
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
    return file; // the browser cannot decode it: let the server say what is wrong
  }
}

async function onPhoto(file) {
  if (!file) return;
  clearResult();
  $("busy").hidden = false;
  try {
    const blob = await downscale(file);
    const form = new FormData();
    form.append("image", blob, file.name || "photo.jpg");
    const ctx = context();
    for (const [k, v] of Object.entries(ctx)) {
      if (k === "flowers") continue;
      form.append(k, typeof v === "object" ? JSON.stringify(v) : String(v));
    }
    const rec = await api("/v1/recognize", { method: "POST", body: form });
    if (state.photo) URL.revokeObjectURL(state.photo.url);
    state.photo = { url: URL.createObjectURL(blob) };
    showRecognition(rec);
  } catch (err) {
    showError(`Photo: ${err.message}`);
  } finally {
    $("busy").hidden = true;
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

function showRecognition(rec) {
  const corrected = new Set((rec.corrections || []).map((c) => c.tile));
  state.tiles = (rec.tiles || []).map((t, i) => ({
    ...t, orig: t.code, changed: false, removed: false, corrected: corrected.has(i),
  }));
  state.melds = meldsOf(rec);
  state.winningTile = rec.winning_tile || null;
  const size = rec.image_size || null;
  const img = $("shot");
  img.onload = () => {
    const w = size ? size[0] : img.naturalWidth;
    const h = size ? size[1] : img.naturalHeight;
    $("overlay").setAttribute("viewBox", `0 0 ${w} ${h}`);
    drawBoxes();
  };
  img.src = state.photo.url;
  $("stage").hidden = false;
  $("tiles-hint").hidden = state.tiles.length === 0;
  const notes = [];
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
  for (const c of rec.corrections || []) notes.push(el("li", {}, describeCorrection(c)));
  for (const n of rec.notes || []) notes.push(el("li", {}, n));
  if (rec.unscorable) notes.push(el("li", {}, `Cannot score: ${rec.unscorable}`));
  for (const a of rec.alternatives || []) {
    if (!a.hand) continue;
    // ratio = P(chosen reading) / P(this reading)
    const rel = a.ratio > 0 ? 1 / a.ratio : 0;
    const likely = rel >= 1 ? `${rel.toFixed(1)}× as likely per the detector`
      : `${Math.round(rel * 100)}% as likely`;
    notes.push(el("li", {}, `Also possible: ${a.hand}`
      + (a.score !== null && a.score !== undefined ? ` (${a.score} fan)` : "")
      + (a.hand === rec.hand ? " — the same hand, read another way"
        : a.same_score ? " — the same score: only which flower or season differs" : "")
      + (a.winning === false ? " (not a win)" : "") + ` — ${likely} `,
    el("button", { type: "button", class: "ghost small", onclick: () => {
      $("hand").value = a.hand; syncFlowerStepper(); rescore();
    } }, "use")));
  }
  // which model read the photo (name@version): what a referee quotes about a reading
  if (rec.model) notes.push(el("li", { class: "model" }, `Read by model ${rec.model}.`));
  $("notes").replaceChildren(...notes);
  $("hand").value = rec.hand || handFromTiles();
  setFlowers(0);
  syncFlowerStepper();
  renderHandTiles();
  if (rec.score) { clearResult(); renderScore(rec.score); }
  else if (rec.waits) { clearResult(); if (rec.unscorable) showError(rec.unscorable); renderWaits(rec.waits); }
  else rescore();
}

function describeCorrection(c) {
  const p = (x) => Number(x).toFixed(2);
  return `Tile ${c.tile + 1} read as ${c.to} instead of ${c.from} (p ${p(c.p_to)} vs ${p(c.p_from)}): `
    + "the first reading was not a possible hand.";
}

function drawBoxes() {
  const svg = $("overlay");
  const vb = svg.viewBox.baseVal;
  const font = Math.max(14, Math.round((vb && vb.width ? vb.width : 1000) / 45));
  svg.replaceChildren();
  state.tiles.forEach((t, i) => {
    if (t.removed) return;
    const [x1, y1, x2, y2] = t.box;
    const cls = [t.role || "standing", t.changed || t.corrected ? "changed" : "",
      t.confidence !== undefined && t.confidence < 0.5 ? "unsure" : ""].join(" ");
    svg.append(el("rect", {
      x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: 4, class: cls,
      "data-index": i, tabindex: 0, role: "button",
      "aria-label": `tile ${i + 1}: ${t.code}`,
      onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") openPicker(i); },
    }));
    svg.append(el("text", { x: x1 + 2, y: Math.max(font, y1 - 4), "font-size": font }, t.code));
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
function tileButton(code, onPick, current) {
  return el("button", {
    type: "button", "data-code": code, class: code === current ? "current" : null,
    onclick: () => onPick(code),
  }, code === "back" ? "▮" : code, el("small", {}, state.zh[code] || ""));
}

function openPicker(index) {
  const tile = state.tiles[index];
  const dialog = $("picker");
  const pick = (code) => {
    dialog.close();
    if (code !== tile.code) {
      tile.code = code;
      tile.changed = code !== tile.orig;
      afterEdit();
    }
  };
  $("picker-title").textContent = `Tile ${index + 1}: ${tile.code} (${state.zh[tile.code] || ""})`;
  const alts = (tile.topk || []).map((a) => a.code).filter((c) => c !== tile.code).slice(0, 4);
  $("picker-top").replaceChildren(...alts.map((c) => tileButton(c, pick, tile.code)));
  $("picker-grid").replaceChildren(...state.classes.map((c) => tileButton(c, pick, tile.code)));
  $("picker-remove").onclick = () => { dialog.close(); tile.removed = true; afterEdit(); };
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

function afterEdit() {
  drawBoxes();
  $("hand").value = handFromTiles();
  syncFlowerStepper();
  renderHandTiles();
  rescore();
}

/* ------------------------------------------------------------------ start */
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
  $("hand").addEventListener("input", syncFlowerStepper);
  $("rules").addEventListener("change", () => { fillVersions(); fillRuleFields(); rescore(); });
  for (const id of ["rule-context", "rule-settings"]) $(id).addEventListener("change", rescore);
  $("version").addEventListener("change", rescore);
  for (const id of ["self_drawn", "last_of_kind", "kong", "last_wall_tile"]) {
    $(id).addEventListener("change", rescore);
  }
  $("flowers-minus").addEventListener("click", () => { setFlowers(state.flowers - 1); rescore(); });
  $("flowers-plus").addEventListener("click", () => { setFlowers(state.flowers + 1); rescore(); });

  api("/readyz").then(
    () => { $("ready").textContent = "camera ready"; $("ready").className = "pill ok"; },
    (err) => {
      $("ready").textContent = "no model: type the hand";
      $("ready").className = "pill bad";
      $("ready").title = err.message;
    },
  );
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
  } catch (err) {
    showError(`Cannot load the rule sets: ${err.message}`);
  }
  document.body.dataset.ready = "1";
}

init();
