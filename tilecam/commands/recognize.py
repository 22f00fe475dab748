"""``tilecam recognize IMAGE``: photo → tiles → layout → corrected hand → score."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tilecam.commands.score import add_rules_arguments, add_win_flags, parse_pairs

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
    p.add_argument("--hidden-kong", action="append", default=[], metavar="KIND",
                   help="kind of a concealed kong shown all face down, in layout order")
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
    settings = parse_pairs(args.settings, "--set")
    if settings:
        ctx["settings"] = settings
    rule_context = parse_pairs(args.rule_context, "--context")
    clash = sorted(set(rule_context) & (set(ctx) | {"claim_win", "hidden_kongs"}))
    if clash:
        raise ValueError(f"--context may not set {', '.join(clash)}; use its own option")
    ctx.update(rule_context)
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


def describe(result: dict[str, Any]) -> str:
    """Human-readable summary of a recognition's JSON."""
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
            f"corrected tile {c['tile']}: {c['from']} -> {c['to']} "
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
        legal = "" if s["legal"] else " (below the minimum to win)"
        lines.append(f"total: {s['total']}{legal}")
    if "waits" in result:
        w = result["waits"]
        if w["ready"]:
            lines.append("waits on: " + " ".join(t["tile"] for t in w["waits"]))
        else:
            lines.append(f"not ready: {w['shanten']} tile(s) from ready")
    if "unscorable" in result:
        lines.append(f"not scored: {result['unscorable']}")
    for d in result.get("discards", {}).get("discards", []):
        if d["ready"]:
            lines.append(f"  discard {d['tile']}: waits on "
                         + " ".join(t["tile"] for t in d["waits"]))
    lines.extend(f"note: {n}" for n in result["notes"])
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from vision.annotate import same_files, target_problem
    from vision.imageio import load_image
    from vision.recognize import check_request, recognize

    context = build_context(args)
    check_request(args.rules, context)  # a bad rule set, setting or field: before the photo
    if args.annotate:  # before the work, not after it
        if (problem := target_problem(args.annotate)) is not None:
            raise ValueError(f"--annotate: {problem}")
        if same_files([args.annotate], [args.image]):
            raise ValueError(f"--annotate: {args.annotate} is the photo read: writing it "
                             "would replace the photo; give another name")
    path = Path(args.image)
    pixels = load_image(str(path))  # a missing or bad file fails before a model loads
    detector = None
    if args.model:
        from vision.detect import load_detector

        detector = load_detector(args.model)
    rec = recognize(pixels, rules=args.rules, context=context, detector=detector)
    out = rec.to_dict()
    out["image"] = str(path)
    problem = None
    if args.annotate:
        from vision.annotate import save_image
        from vision.render import render

        try:
            save_image(args.annotate, render(pixels, rec))
        except ValueError as exc:  # the reading is still given, then the error
            problem = str(exc)
    if args.json:
        print(json.dumps(out, ensure_ascii=False), flush=True)
    else:
        print(describe(out), flush=True)
    if problem is not None:
        print(f"tilecam recognize: error: --annotate: annotated image not written: {problem} "
              "(the reading above is complete)", file=sys.stderr, flush=True)
        return 2
    return 0
