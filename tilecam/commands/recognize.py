"""``tilecam recognize IMAGE``: photo → tiles → layout → corrected hand → score."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tilecam.commands.score import (
    NAMED_OPTIONS,
    add_rules_arguments,
    add_win_flags,
    rule_context,
    settings_of,
    settlement_lines,
)

#: The keys a ``--context`` pair may not set, and the option that sets each.
RECOGNIZE_OPTIONS = {**NAMED_OPTIONS, "hand": "the photo (IMAGE)",
                     "claim_win": "--win or --no-win", "hidden_kongs": "--hidden-kong"}

FLOWERS_HELP = ("flowers of a photo that shows none (0-8): the flowers a photo shows are "
                "read from it and counted, and a count that differs from them is refused")

CLAIM_WORDS = {1: "from the left (上家)", 2: "from opposite (对家)", 3: "from the right (下家)"}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "recognize",
        help="read a photo of a hand and score it",
        description=(
            "Detect the tiles in IMAGE, read the layout (standing tiles, melds with the "
            "sideways tile giving the claim source, face-down kongs, flowers, the winning "
            "tile set apart), correct impossible readings with the rules, and score the "
            "hand (or give its waits, or say why it cannot be scored)."
        ),
    )
    p.add_argument("image", help="photo file (JPEG, PNG, WebP, BMP, TIFF)")
    add_win_flags(p)  # --self-drawn --last-of-kind --kong --last-wall-tile --discarder
    add_rules_arguments(p)  # --rules --version --set --context --seat --prevalent --flowers --json
    for action in p._actions:
        if action.dest == "flowers":
            action.help = FLOWERS_HELP
    p.add_argument("--hidden-kong", action="append", default=[], metavar="KIND",
                   help="kind of a concealed kong shown all face down, in layout order (a "
                   "note says when the photo shows fewer such kongs than kinds given)")
    win = p.add_mutually_exclusive_group()
    win.add_argument("--win", dest="win", action="store_true", default=None,
                     help="the hand is shown as a win (default: decided by its tile count)")
    win.add_argument("--no-win", dest="win", action="store_false",
                     help="the hand is not a win: show its waits (a hand of a win's size: "
                     "each discard that leaves it ready, with its waits)")
    p.add_argument("--model-dir", "--model", dest="model", default=None,
                   help="model folder (default: the shipped model; --model is the old name)")
    p.add_argument("--annotate", metavar="OUT.jpg", default=None,
                   help="write an annotated image (melds, winning tile, corrections, fans)")
    p.set_defaults(func=run)


#: Below this hand confidence the reading asks for a check, as the phone page does.
CHECK_BELOW = 0.7


def build_context(args: argparse.Namespace) -> dict[str, Any]:
    """The ``context`` mapping of :func:`vision.recognize.recognize` from the flags (the
    same win flags, settings and rule context as ``tilecam score``)."""
    ctx: dict[str, Any] = {
        "self_drawn": args.self_drawn,
        "last_of_kind": args.last_of_kind,
        "kong": args.kong,
        "last_wall_tile": args.last_wall_tile,
        "seat_wind": args.seat,
        "prevalent_wind": args.prevalent,
    }
    if args.discarder is not None:
        ctx["discarder"] = args.discarder
    if args.flowers:
        ctx["flowers"] = args.flowers
    if args.rules_version:
        ctx["version"] = args.rules_version
    settings = settings_of(args)
    if settings:
        ctx["settings"] = settings
    ctx.update(rule_context(args, RECOGNIZE_OPTIONS))
    if args.hidden_kong:
        ctx["hidden_kongs"] = list(args.hidden_kong)
    if args.win is not None:
        ctx["claim_win"] = args.win
    return ctx


def likelihood(ratio: float) -> str:
    """``ratio`` = P(chosen) / P(alternative) in words."""
    if ratio >= 1:
        return f"{ratio:.1f}x less likely"
    return f"{1 / max(ratio, 1e-9):.1f}x more likely by the tiles alone"


def total_line(s: dict[str, Any], st: dict[str, Any]) -> str:
    """The total in the rule set's own words: MCR counts fan and a hand under its minimum
    is no legal win; Xiamen and Zhenjiang count chips (their settlement's unit) and have
    no minimum: a hand that is no win is 诈胡, for the reason the score gives.

    >>> total_line({"rules": "mcr", "total": 5, "legal": False}, {"unit": "points"})
    'total: 5 (below the minimum to win)'
    >>> total_line({"rules": "zhenjiang", "total": 0, "legal": False,
    ...             "details": {"reason": "not complete"}}, {"unit": "chips"})
    'total: 0 chips (not a win, 诈胡: not complete)'
    """
    if s.get("rules", "mcr") == "mcr":
        return f"total: {s['total']}" + ("" if s["legal"] else " (below the minimum to win)")
    unit = st.get("unit") or "chips"
    unit = unit.removesuffix("s") if s["total"] == 1 else unit  # 1 chip
    if s["legal"]:
        return f"total: {s['total']} {unit}"
    reason = (s.get("details") or {}).get("reason")
    return f"total: {s['total']} {unit} (not a win, 诈胡" + (f": {reason})" if reason else ")")


def describe(result: dict[str, Any]) -> str:
    """Human-readable summary of a recognition's JSON, each tile named with its code and
    its Chinese name as ``tilecam waits`` names it (:func:`tilecam.commands.waits.named`).

    >>> print(describe({"image": "x.jpg", "tiles": [{"role": "standing"}], "hand": "-",
    ...                 "melds": [], "alternatives": [], "notes": [],
    ...                 "corrections": [{"tile": 3, "from": "5p", "to": "6p", "p_from": 0.4,
    ...                                  "p_to": 0.3, "ratio": 1.333}]}))
    x.jpg: 1 tiles found, 1 in the hand
    hand: -
    corrected tile 3: 5p 五饼 -> 6p 六饼 (p 0.40 vs 0.30, 1.3x)
    """
    from tilecam.commands.waits import named

    lines = []
    tiles = result["tiles"]
    found = sum(t["role"] != "ignored" for t in tiles)
    lines.append(f"{result['image']}: {len(tiles)} tiles found, {found} in the hand")
    lines.append(f"hand: {result['hand'] or '-'}")
    if result.get("hand_confidence") is not None and tiles:
        lines.append(
            f"hand confidence: {result['hand_confidence']:.0%} "
            "(share of such readings with every tile right, calibrated on real photos)"
        )
        if result["hand_confidence"] < CHECK_BELOW:  # as the phone page asks
            lines.append("check the tiles against the photo: readings this sure get every "
                         "tile right less than 70 % of the time (--annotate marks them)")
    sc, hc = result.get("score_confidence"), result.get("hand_confidence")
    if sc is not None and hc is not None and tiles and round(sc, 2) != round(hc, 2):
        lines.append(
            f"score confidence: {sc:.0%} (share of such readings with every tile right as "
            "far as this score can tell: which flower or season a bonus tile is counts less "
            "or not at all)"
        )
    for m in result["melds"]:
        src = "concealed" if m["concealed"] else CLAIM_WORDS.get(m["claimed_from"], "?")
        added = ", added kong" if m["added"] else ""
        added += ", shown face up: may have been claimed" if m.get("face_up") else ""
        lines.append(f"  meld {m['notation']}: {m['kind']} {src}{added}")
    for c in result["corrections"]:
        lines.append(
            f"corrected tile {c['tile']}: {named(c['from'])} -> {named(c['to'])} "
            f"(p {c['p_from']:.2f} vs {c['p_to']:.2f}, {c['ratio']:.1f}x)"
        )
    for a in result["alternatives"]:
        score = f", total {a['score']}" if a.get("score") is not None else ""
        if a.get("hand") == result["hand"]:
            score += " (the same hand, read another way)"
        elif a.get("same_score"):  # differs only in codes the rules score alike
            score += " (same score: only which flower or season differs)"
        win = "" if a["winning"] else ", not a win"
        lines.append(f"close reading ({likelihood(a['ratio'])}{win}): {a['hand']}{score}")
    if "score" in result:
        s = result["score"]
        for f in s["fans"]:
            count = f" x{f['count']}" if f["count"] > 1 else ""
            lines.append(f"  {f['zh']} {f['en']}{count}: {f['value'] * f['count']}")
        st = s.get("settlement") or {}
        lines.append(total_line(s, st))
        if st:  # as tilecam score prints it
            from types import SimpleNamespace

            lines.extend(settlement_lines(SimpleNamespace(
                unit=st.get("unit"), winner_receives=int(st.get("winner") or 0),
                payments=[SimpleNamespace(**p) for p in st.get("payments") or []],
                note=st.get("note")), s.get("details")))
    if "waits" in result:
        w = result["waits"]
        if w["ready"]:  # each tile with its Chinese name, as tilecam waits names it
            lines.append("waits on: " + ", ".join(named(t["tile"]) for t in w["waits"]))
        else:
            lines.append(f"not ready: {w['shanten']} tile(s) from ready")
    if "unscorable" in result:
        lines.append(f"not scored: {result['unscorable']}")
    lines.extend(discard_lines((result.get("discards") or {}).get("discards") or []))
    lines.extend(f"note: {n}" for n in result["notes"])
    return "\n".join(lines)


def discard_lines(discards: list[dict[str, Any]]) -> list[str]:
    """The discards of a hand that drew (``Discards.to_dict()``'s, best first) as ``tilecam
    waits`` tells them, each tile with its Chinese name: those that leave it ready with
    their waits; when none leaves it ready with a tile left to win on, those ready in form
    only (every wait dead), then the nearest to ready with their useful draws (有效牌), the
    most first.

    >>> print("\\n".join(discard_lines([
    ...     {"tile": "4s", "ready": False, "shanten": 1, "waits": [], "useful_draws": 6,
    ...      "useful": [{"tile": "6s", "remaining": 4}, {"tile": "E", "remaining": 2}]},
    ...     {"tile": "S", "ready": False, "shanten": 2, "waits": [], "useful_draws": 9,
    ...      "useful": []}])))
      discard 4s 四条   6 useful draw(s): 6s 六条 (4), E 东 (2)
      (1 other discard(s) leave it further from ready)
    >>> print("\\n".join(discard_lines([
    ...     {"tile": "N", "ready": True, "waits": [{"tile": "1s"}, {"tile": "4s"}]},
    ...     {"tile": "1s", "ready": True, "live": False, "waits": [{"tile": "N"}]}])))
      discard N 北    waits on 1s 一条, 4s 四条
      discard 1s 一条 waits on N 北 (ready in form only: none left of any)
    """
    from tilecam.commands.score import pad
    from tilecam.commands.waits import NAMED_WIDTH, named, useful_line

    def waits(d: dict[str, Any]) -> str:
        return (f"  discard {pad(named(d['tile']), NAMED_WIDTH)} waits on "
                + ", ".join(named(t["tile"]) for t in d["waits"])
                + ("" if d.get("live", True) else " (ready in form only: none left of any)"))

    ready = [d for d in discards if d["ready"]]
    live = [d for d in ready if d.get("live", True)]  # older answers had no "live"
    if live:
        return [waits(d) for d in ready]
    below = [d for d in discards if not d["ready"]]
    near = min((d["shanten"] for d in below), default=0)
    best = [d for d in below if d["shanten"] == near and d.get("useful_draws") is not None]
    out = [useful_line(d["tile"], d["useful_draws"],
                       [(u["tile"], u["remaining"]) for u in d.get("useful") or []])
           for d in best]
    further = sum(d["shanten"] > near for d in below)
    if best and further:
        out.append(f"  ({further} other discard(s) leave it further from ready)")
    return [waits(d) for d in ready] + out


def check_flowers(rules: str, flowers: int) -> None:
    """A ``--flowers`` count the rules cannot take whatever the photo: refused before it
    is read (Zhenjiang plays without flowers), as :func:`vision.flower_count.check_flowers`
    refuses it for ``POST /v1/recognize``."""
    from vision.flower_count import check_flowers as check

    check(rules, flowers, "--flowers")


def all_down_kongs(rec: Any) -> int:
    """Concealed kongs shown all face down in a reading (what ``--hidden-kong`` names)."""
    from vision.classes import BACK

    return sum(1 for m in rec.layout.melds
               if m.concealed and all(rec.codes[i] == BACK for i in m.detections))


def read_photo(pixels: Any, args: argparse.Namespace, context: dict[str, Any],
               detector: Any) -> Any:
    """The recognition of ``pixels`` (an array, or a :class:`vision.imageio.Photo`). A
    ``--flowers`` count is the flowers of a photo that shows none, read as ``POST
    /v1/recognize`` reads its ``flowers`` field (:func:`vision.flower_count.read_with_flowers`):
    the photo is read without it first (the detector run once), and read with it only
    when it shows no flower; a photo that shows another number of flowers is refused
    (ValueError), as the scorer would refuse every reading of it."""
    from vision.flower_count import read_with_flowers

    flowers = int(context.pop("flowers", 0) or 0)
    return read_with_flowers(pixels, args.rules, context, flowers, detector=detector,
                             name="--flowers")


def image_error_text(name: str, exc: Exception) -> str:
    """The error of a photo that cannot be read, naming the file once: ``exc``'s message
    where it names it already (a missing or empty file), else after the name (a
    truncated JPEG, a file that is no image), as ``tilecam detect`` writes it.

    >>> image_error_text("a.jpg", ValueError("truncated JPEG: the end-of-image marker is missing"))
    'a.jpg: truncated JPEG: the end-of-image marker is missing'
    >>> image_error_text("a.jpg", ValueError("no such image file: a.jpg"))
    'no such image file: a.jpg'
    """
    text = str(exc)
    return text if name in text else f"{name}: {text}"


def run(args: argparse.Namespace) -> int:
    import sys

    from tilecam.commands._model import check_model_dir
    from vision.annotate import same_files, target_problem
    from vision.imageio import ImageError, load_for_reading
    from vision.recognize import check_request

    context = build_context(args)
    check_flowers(args.rules, args.flowers)  # named as the option, before the rules' check
    check_request(args.rules, context)  # a bad rule set, setting or field: before the photo
    check_model_dir(args.model, "--model-dir")
    if args.annotate:  # before the work, not after it
        if (problem := target_problem(args.annotate)) is not None:
            raise ValueError(f"--annotate: {problem}")
        if same_files([args.annotate], [args.image]):
            raise ValueError(f"--annotate: {args.annotate} is the photo read: writing it "
                             "would replace the photo; give another name")
    # a missing or bad file fails before a model loads; loaded as the service loads an
    # upload (a large JPEG decoded reduced, whole only when small tiles or --annotate need
    # its pixels), so that the command and POST /v1/recognize read a photo alike
    try:
        photo = load_for_reading(args.image)
    except ImageError as exc:  # which file, as tilecam detect says it
        raise ValueError(image_error_text(args.image, exc)) from None
    detector = None
    if args.model:
        from vision.detect import load_detector

        detector = load_detector(args.model)
    rec = read_photo(photo, args, context, detector)
    out = rec.to_dict()
    out["image"] = args.image  # as given, as detect echoes it
    if args.hidden_kong and len(args.hidden_kong) > (down := all_down_kongs(rec)):
        unused = " ".join(args.hidden_kong[down:])
        out["notes"].append(
            f"{len(args.hidden_kong)} --hidden-kong kind(s) given but the reading has {down} "
            f"kong(s) shown all face down: {unused} not used")
    problem = None
    if args.annotate:
        from vision.annotate import save_image
        from vision.render import render

        try:
            save_image(args.annotate, render(photo.pixels, rec))
        except ValueError as exc:  # the reading is still given, then the error
            problem = str(exc)
    if args.json:
        from tilecam.commands.detect import _is_text

        # a file name of undecodable bytes is written \u-escaped (raw, the line would not
        # be UTF-8 and so not JSON text), as detect writes it
        print(json.dumps(out, ensure_ascii=not _is_text(args.image)), flush=True)
    else:
        print(describe(out), flush=True)
    if problem is not None:
        print(f"tilecam recognize: error: --annotate: annotated image not written: {problem} "
              "(the reading above is complete)", file=sys.stderr, flush=True)
        return 2
    return 0
