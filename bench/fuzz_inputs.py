"""Fuzzing the bad-input promise: odd images and hands at the service, random detections
through ``recognize``. Every answer must be a clear error or a result — never a 5xx, a
traceback or an exception other than the one the API documents.

Two parts, each seeded (the same seed gives the same inputs):

* ``service`` — the FastAPI app in process (``TestClient``, the shipped model unless
  ``--no-model``, a throwaway SQLite database): images that are valid but odd (16-bit,
  grey, alpha, progressive, WebP/BMP/TIFF, 1 px strips, EXIF orientations, black/white/
  noise frames, a JPEG sent twice), broken (truncated, garbage inside, header only,
  random bytes, SVG/HTML/PDF/gzip), at ``/v1/recognize`` (form and raw body),
  ``/v1/detect`` and a table's camera ``/v1/tables/{id}/frames``, odd form fields and
  query strings at ``/v1/recognize``;
  then random hand strings and option values at ``/v1/score`` and ``/v1/waits`` under
  the three rule sets, and random wins with random settings and rule-specific context
  (:func:`fuzz_settings`). A failure is a status ≥ 500, a body that is not JSON, an error
  body without an ``error`` object, or (settings) an answer slower than 2 s.
* ``layout`` — random :class:`vision.detections.Detections` (rows at any slant, stacks,
  scatter; any codes, rotations, top-k lists; 0–60 tiles; frames down to 1 × 1 px)
  through :func:`vision.recognize.recognize_detections` (with the shipped model's
  calibration, so the hand and score confidences are computed) and ``to_dict()``. A failure is
  any exception except ``scoring.HandError`` (the documented bad-context error). The
  slowest readings are listed (a reading is bounded by ``CorrectParams.max_readings``).

Usage::

    .venv/bin/python bench/fuzz_inputs.py service [--seed 0] [--hands 400] [--no-model]
    .venv/bin/python bench/fuzz_inputs.py layout [--seed 0] [--count 3000]

Exit status 1 when anything failed (each failure printed), else 0.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import shutil
import struct
import sys
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")
#: The admin key of the throwaway service (a fresh SQLite database in a temporary folder).
ADMIN_KEY = "fuzz-admin-key-0123456789abcdef"


def _encode(ext: str, img: np.ndarray, params: tuple[int, ...] = ()) -> bytes:
    import cv2

    ok, buf = cv2.imencode(ext, img, list(params))
    if not ok:
        raise RuntimeError(f"OpenCV cannot encode {ext}")
    return bytes(buf.tobytes())


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with an APP1 EXIF segment holding only an orientation tag."""
    tiff = (b"MM\x00*\x00\x00\x00\x08" + struct.pack(">H", 1)
            + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\x00\x00\x00\x00")
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def scene_picture(rng: np.random.Generator) -> np.ndarray:
    """A 640 × 480 BGR picture of a row of pale tile-like blocks on green cloth."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 120, 40)
    for i in range(12):
        x = 40 + i * 46
        img[200:262, x:x + 42] = (225, 230, 235)
        img[215:245, x + 10:x + 32] = rng.integers(0, 255, 3).tolist()
    return img


def odd_images(seed: int) -> dict[str, bytes]:
    """Named image payloads: valid but odd, and broken ones."""
    import cv2

    rng = np.random.default_rng(seed)
    src = scene_picture(rng)
    jpeg = _encode(".jpg", src)
    out = {
        "jpeg": jpeg,
        "progressive jpeg": _encode(".jpg", src, (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)),
        "16-bit png": _encode(".png", src.astype(np.uint16) * 257),
        "png with alpha": _encode(".png", cv2.cvtColor(src, cv2.COLOR_BGR2BGRA)),
        "grey png": _encode(".png", cv2.cvtColor(src, cv2.COLOR_BGR2GRAY)),
        "16-bit grey png": _encode(".png", cv2.cvtColor(src, cv2.COLOR_BGR2GRAY).astype(np.uint16)
                                   * 257),
        "webp": _encode(".webp", src),
        "bmp": _encode(".bmp", src),
        "tiff": _encode(".tiff", src),
        "1x1 png": _encode(".png", src[:1, :1]),
        "1 px tall strip": _encode(".png", np.full((1, 4000, 3), 128, np.uint8)),
        "1 px wide strip": _encode(".jpg", np.full((4000, 1, 3), 128, np.uint8)),
        "2 px tall wide strip": _encode(".png", np.full((2, 20000, 3), 128, np.uint8)),
        "black frame": _encode(".jpg", np.zeros((960, 1280, 3), np.uint8)),
        "white frame": _encode(".png", np.full((960, 1280, 3), 255, np.uint8)),
        "noise frame": _encode(".jpg", rng.integers(0, 256, (960, 1280, 3), dtype=np.uint8)),
        "random bytes": rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(),
        "jpeg header only": jpeg[:200],
        "png header only": _encode(".png", src)[:60],
        "jpeg with zeros inside": jpeg[:2000] + bytes(3000) + jpeg[5000:],
        "jpeg sent twice": jpeg * 2,
        "svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>',
        "html": b"<html><body>hi</body></html>",
        "pdf": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF",
        "gzip": zlib.compress(b"x" * 1000),
    }
    for orientation in (0, 3, 6, 8, 9, 255):
        out[f"exif orientation {orientation}"] = _with_exif_orientation(jpeg, orientation)
    return out


def random_hand(rng: random.Random) -> str:
    """A notation-like string: random characters, or random tiles with a random meld."""
    if rng.random() < 0.4:
        alphabet = [*"123456789mpsfEWSNCFP[],0 {}()+-xyz\u4e00\u00e9", ",1", ",2", ",3"]
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
    hand = "".join(rng.choice(KINDS) for _ in range(rng.randint(1, 20)))
    if rng.random() < 0.4:
        meld = "".join(rng.choice(KINDS) for _ in range(rng.randint(1, 5)))
        hand = f"[{meld},{rng.randint(0, 4)}]{hand}"
    return hand


class Failures:
    """Failures found, printed as they come."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, what: str) -> None:
        self.items.append(what)
        print(f"FAIL {what}")


def check_response(failures: Failures, name: str, response: Any,
                   not_ready_ok: bool = False) -> None:
    """A result or a clear JSON error: no 5xx (but 503 ``not_ready`` when
    ``not_ready_ok``: no model loaded), JSON body, an ``error`` object on 4xx."""
    try:
        body = response.json()
    except ValueError:
        failures.add(f"{name}: {response.status_code} body is not JSON: {response.text[:120]!r}")
        return
    error = body.get("error") if isinstance(body, dict) else None
    if (not_ready_ok and response.status_code == 503 and isinstance(error, dict)
            and error.get("code") == "not_ready"):
        return
    if response.status_code >= 500:
        failures.add(f"{name}: {response.status_code} {json.dumps(body)[:200]}")
    elif response.status_code >= 400 and not isinstance(error, dict):
        failures.add(f"{name}: {response.status_code} without an error object: "
                     f"{json.dumps(body)[:200]}")


def _ready(client: Any, seconds: float = 120.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if client.get("/readyz").status_code == 200:
            return True
        time.sleep(0.25)
    return False


def throwaway_app(folder: Path, load_model: bool, database_url: str | None = None) -> Any:
    """The service on ``database_url`` (default: a fresh SQLite database in ``folder``),
    its data in ``folder``, with the admin key :data:`ADMIN_KEY` and the rate limits (the
    tables' keys' and the admin key's own) lifted (a fuzzer's requests come fast)."""
    from tilecam.app import create_app
    from tilecam.settings import Settings

    url = database_url or f"sqlite:///{(folder / 'fuzz.db').as_posix()}"
    return create_app(Settings(
        load_model=load_model, database_url=url,
        data_dir=folder / "data", admin_key=ADMIN_KEY, rate_limit_per_s=1e6,
        rate_limit_burst=1_000_000, admin_rate_limit_per_s=1e6,
        admin_rate_limit_burst=1_000_000))


def fuzz_service(seed: int, hands: int, load_model: bool) -> Failures:
    """The service part (see the module doc)."""
    from _deps import fastapi_test_client

    TestClient = fastapi_test_client()
    failures = Failures()
    folder = Path(tempfile.mkdtemp(prefix="tilecam-fuzz-"))
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    app = throwaway_app(folder, load_model)
    with TestClient(app, raise_server_exceptions=False) as client:
        if load_model and not _ready(client):
            failures.add("the model did not load within 120 s (/readyz)")
            return failures
        event = client.post("/v1/events", json={"name": "fuzz", "rules": "mcr"}, headers=admin)
        table = client.post(f"/v1/events/{event.json()['id']}/tables", headers=admin,
                            json={"name": "T1", "players": ["A", "B", "C", "D"]}).json()
        camera = {"Authorization": f"Bearer {table['api_key']}"}
        images = odd_images(seed)
        for name, data in images.items():
            for path in ("/v1/recognize", "/v1/detect"):
                files = {"image": ("upload.bin", data, "application/octet-stream")}
                check_response(failures, f"{path} form, {name}", client.post(path, files=files),
                               not load_model)
            check_response(failures, f"/v1/recognize raw body, {name}", client.post(
                "/v1/recognize", content=data, headers={"content-type": "image/jpeg"}),
                not load_model)
            check_response(failures, f"table frame, {name}", client.post(
                f"/v1/tables/{table['id']}/frames", headers=camera,
                files={"image": ("frame.jpg", data, "image/jpeg")}), not load_model)
        jpeg = images["jpeg"]
        odd_fields: list[dict[str, str]] = [
            {"rules": "nope"}, {"rules": "mcr", "self_drawn": "maybe"}, {"seat_wind": "Q"},
            {"flowers": "-3"}, {"rules": "xiamen", "gold": "9z"}, {"rules": "zhenjiang"},
            {"version": "1999"}, {"rules": ""}, {"self_drawn": "true" * 1000},
            {"rule_context": "{not json"}, {"settings": "[1, 2]"},
        ]
        for fields in odd_fields:
            check_response(failures, f"/v1/recognize fields {fields}"[:90], client.post(
                "/v1/recognize", files={"image": ("x.jpg", jpeg, "image/jpeg")}, data=fields),
                not load_model)
        for query in ("rules=nope", "rules=mcr&self_drawn=2", "seat_wind=%00",
                      "rules=xiamen&gold=1m", "x=" + "a" * 5000):
            check_response(failures, f"/v1/recognize ?{query}"[:90], client.post(
                "/v1/recognize?" + query, content=jpeg, headers={"content-type": "image/jpeg"}),
                not load_model)
        rng = random.Random(seed)
        for _ in range(hands):
            hand = random_hand(rng)
            for path in ("/v1/score", "/v1/waits"):
                for rules in ("mcr", "xiamen", "zhenjiang"):
                    body: dict[str, Any] = {"hand": hand, "rules": rules}
                    if rng.random() < 0.3:
                        body["self_drawn"] = rng.choice([True, False, "x", 3, None])
                    if rng.random() < 0.2:
                        body["flowers"] = rng.choice([0, 8, 9, -1, ["1f", "1f"], ["9f"], "x"])
                    if rules == "xiamen" and rng.random() < 0.5:
                        body["gold"] = rng.choice([*KINDS, "zz"])
                    check_response(failures, f"{path} {json.dumps(body)}"[:120],
                                   client.post(path, json=body))
        slowest = fuzz_settings(client, rng, hands, failures)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"service: {len(images)} images × 4 ways, {len(odd_fields) + 5} option sets, "
          f"{hands} hands × 6, {hands} wins × 2 with odd settings and context (slowest "
          f"{slowest:.2f} s); {len(failures.items)} failures")
    return failures


#: Values a setting or rule-specific context field is tried with: its own type at the
#: edges (0, -1, 10⁹ the largest taken, one past it, 2³¹, 10¹⁸) and other types.
ODD_VALUES: tuple[Any, ...] = (0, 1, -1, -2, 10**9, 10**9 + 1, 2**31, 10**18, 1.5, "x", "",
                               True, None, [1], {"a": 1}, "9z", "E", "5m")


def odd_settings(rng: random.Random, rules: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Random settings and rule-specific context for ``rules``: each field of the rule
    set's tables left out or given a value of its type (a choice, a flag, a number up to
    10⁹, the largest taken) or, one time in ten, an odd one (:data:`ODD_VALUES`)."""
    from scoring.rulesets import get_rule_set

    rule_set = get_rule_set(rules)

    def value(setting: Any) -> Any:
        default = setting.default
        if rng.random() < 0.1:
            return rng.choice(ODD_VALUES)
        if setting.choices:
            return rng.choice(setting.choices)
        if isinstance(default, bool):
            return rng.random() < 0.5
        if isinstance(default, int):
            return rng.choice((0, 1, 2, default, 10**9, rng.randint(0, 10**9)))
        return default

    settings = {n: value(f) for n, f in rule_set.settings().items() if rng.random() < 0.3}
    context = {n: value(f) for n, f in rule_set.context_fields().items()
               if f.default is not None and rng.random() < 0.3}
    return settings, context


def fuzz_settings(client: Any, rng: random.Random, count: int, failures: Failures) -> float:
    """``count`` winning hands of the three rule sets at ``/v1/score`` and ``/v1/waits``
    (the hand less its last tile) with :func:`odd_settings`: every answer a result or a
    clear error, none slower than 2 s (a setting must not make the scorer build huge
    numbers). Returns the slowest answer's seconds."""
    from fuzz_tables import wild_win  # bench/, which imports this module: import here

    from scoring.mcr.samples import random_win
    from scoring.notation import format_hand

    slowest = 0.0
    for _ in range(count):
        rules = rng.choice(("mcr", "xiamen", "zhenjiang"))
        hand, ctx = random_win(rng) if rules == "mcr" else wild_win(rng, rules)
        settings, context = odd_settings(rng, rules)
        base = {"rules": rules, "settings": settings, "self_drawn": bool(ctx["self_drawn"]),
                "rule_context": {**ctx.get("context", {}), **context}}
        text = format_hand(hand)
        for path, body in (("/v1/score", {**base, "hand": text}),
                           ("/v1/waits", {**base, "hand": text[:-2] if text[-1] in "mpsf"
                                          else text[:-1]})):
            started = time.perf_counter()
            response = client.post(path, json=body)
            seconds = time.perf_counter() - started
            slowest = max(slowest, seconds)
            name = f"{path} {json.dumps(body)}"[:200]
            check_response(failures, name, response)
            if seconds > 2.0:
                failures.add(f"{name}: {seconds:.1f} s")
    return slowest


def random_detections(rng: random.Random) -> Iterator[tuple[Any, str, dict[str, Any]]]:
    """Endless random (detections, rules, context) triples (see the module doc)."""
    from vision.classes import CLASSES
    from vision.detections import Detections

    codes = list(CLASSES)
    while True:
        n = rng.choice([0, 1, 2, 5, 13, 14, 15, 18, 22, 30, 60])
        width, height = rng.choice([(1280, 960), (640, 640), (100, 4000), (1, 1)])
        x0, y0 = rng.uniform(0, width), rng.uniform(0, height)
        long_px = rng.uniform(0.5, 120)
        short_px = long_px * rng.uniform(0.5, 2)
        slant = rng.uniform(-3.2, 3.2) if rng.random() < 0.5 else 0.0
        shape = rng.random()
        boxes, tops, conf, rot, topk = [], [], [], [], []
        for i in range(n):
            if shape < 0.5:  # a row at a slant, irregular gaps
                x = x0 + i * long_px * rng.uniform(0.8, 1.6) * np.cos(slant)
                y = y0 + i * long_px * np.sin(slant) + rng.gauss(0, short_px * 0.1)
            elif shape < 0.7:  # a stack on one spot
                x, y = x0 + rng.gauss(0, 2), y0 + rng.gauss(0, 2)
            else:  # scattered, some outside the frame
                x, y = rng.uniform(-50, width + 50), rng.uniform(-50, height + 50)
            r = rng.choice([0, 90, 180, 270])
            w, h = (short_px, long_px) if r in (90, 270) else (long_px, short_px)
            boxes.append((x, y, x + w, y + h))
            code = rng.choice(codes) if rng.random() < 0.5 else rng.choice(codes[:34])
            p = rng.random()
            alternatives = {code: p}
            left = 1 - p  # a tile's alternatives share what its top-1 leaves (sum ≤ 1)
            for _ in range(rng.randint(0, 4)):
                q = rng.random() * left
                if alternatives.setdefault(rng.choice(codes), q) == q:
                    left -= q
            tops.append(code)
            conf.append(p)
            rot.append(r)
            topk.append(list(alternatives.items()))
        dets = Detections.from_lists(boxes, tops, conf, rot, topk, image_size=(width, height))
        rules = rng.choice(["mcr", "mcr", "xiamen", "zhenjiang"])
        context: dict[str, Any] = {"mcr": {}, "xiamen": {"gold": rng.choice(KINDS)},
                                   "zhenjiang": {"wild": rng.choice(KINDS)}}[rules]
        if rng.random() < 0.5:
            context["self_drawn"] = rng.random() < 0.5
        if rng.random() < 0.3:
            context["claim_win"] = rng.random() < 0.5
        yield dets, rules, context


def shipped_calibration() -> dict[str, Any] | None:
    """The calibration of ``models/manifest.json`` (checked), or None without one."""
    from vision.confidence import check_calibration

    path = REPO / "models" / "manifest.json"
    entry = json.loads(path.read_text()).get("calibration") if path.is_file() else None
    return None if entry is None else check_calibration(entry)


def fuzz_layout(seed: int, count: int,
                read: Callable[..., Any] | None = None) -> tuple[Failures, list[tuple[float, int]]]:
    """The layout part (see the module doc): failures and the 10 slowest (ms, item)."""
    import warnings

    import scoring
    from vision.recognize import recognize_detections

    read = read or functools.partial(recognize_detections, calibration=shipped_calibration())
    failures = Failures()
    timing: list[tuple[float, int]] = []
    seen: set[str] = set()
    source = random_detections(random.Random(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero-size boxes divide by zero
        for item in range(count):
            dets, rules, context = next(source)
            start = time.perf_counter()
            try:
                read(dets, rules, context).to_dict()
            except scoring.HandError:
                pass
            except Exception as exc:  # any other exception is the finding
                key = f"{type(exc).__name__}: {exc}"
                if key not in seen:
                    seen.add(key)
                    where = traceback.extract_tb(exc.__traceback__)[-1]
                    failures.add(f"item {item} (seed {seed}, {rules}, {len(dets)} tiles): {key} "
                                 f"at {Path(where.filename).name}:{where.lineno}")
            timing.append(((time.perf_counter() - start) * 1000, item))
    slowest = sorted(timing, reverse=True)[:10]
    print(f"layout: {count} random detection sets, seed {seed}; {len(failures.items)} distinct "
          f"failures; slowest ms: {', '.join(f'{ms:.0f} (item {i})' for ms, i in slowest[:5])}")
    return failures, slowest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="part", required=True)
    service = sub.add_parser("service", help="odd images and hands at the service")
    service.add_argument("--seed", type=int, default=0)
    service.add_argument("--hands", type=int, default=400)
    service.add_argument("--no-model", action="store_true",
                         help="do not load the shipped model (image endpoints answer 503)")
    layout = sub.add_parser("layout", help="random detections through recognize")
    layout.add_argument("--seed", type=int, default=0)
    layout.add_argument("--count", type=int, default=3000)
    args = parser.parse_args(argv)
    if args.part == "service":
        failures = fuzz_service(args.seed, args.hands, not args.no_model)
    else:
        failures, _ = fuzz_layout(args.seed, args.count)
    return 1 if failures.items else 0


if __name__ == "__main__":
    sys.exit(main())
