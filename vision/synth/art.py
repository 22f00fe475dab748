"""Tile art sets: face textures for every tile code, read from where they are installed.

An art set gives, for each detector class it has, the *face texture* of the tile: an
RGB uint8 array ``(H, W, 3)`` of the tile's front face seen straight on, upright (glyph
top at row 0), portrait (``H > W``), including the face's own background colour. The
renderer maps it onto the top of a 3D tile body.

Sources (nothing is copied into the repository; rasterised faces are cached in a
git-ignored folder, :func:`cache_dir`):

==================  ==========================================================  =======
set name            source                                                      licence
==================  ==========================================================  =======
fluffy              ``<shared>/tileart/fluffystuff`` SVG faces on ``Front.svg``  CC0
                    (Regular and Black bodies; no bonus tiles)
kmahjongg-<name>    ``/usr/share/kmahjongglib/tilesets/<name>.svgz`` (Debian    GPL-2+
                    ``kdegames-mahjongg-data-kf5``): face overlays by element id
gnome-<theme>       ``/usr/share/gnome-mahjongg/themes`` sprite sheets, 43 x 2   GPL-2+
xmahjongg-real      ``/usr/share/games/xmahjongg/tiles/real.gif`` 56x76 scans   GPL-2+
xmahjongg-<sheet>   ``dorothys``, ``dorwhite``, ``gnome``, ``gnome2`` ``.gif``       GPL-2+
                    sheets: small drawn faces (:func:`load_xmahjongg_sheet`)
procedural          faces drawn from installed CJK fonts and shapes in 24       fonts'
                    random styles (:mod:`vision.synth.procedural`);
procedural-<n>      ``procedural-1``, ``-2``...: 24 other styles (style seed n)
pictorial-<n>       24 procedural styles (seed n) whose bonus faces carry varied
                    pictures (scenes, branches, plants; ``Style.pictures``)
==================  ==========================================================  =======

SVG rasterising needs ``cairosvg`` (``dev``/``train`` extras, Debian ``libcairo2``);
it is imported lazily and only when a face is not in the cache yet.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.classes import BONUS, CLASSES

Image = npt.NDArray[np.uint8]

#: Height in pixels of cached face textures (tiles are drawn at most ~120 px high).
FACE_HEIGHT = 160
KMAHJONGG_DIR = Path("/usr/share/kmahjongglib/tilesets")
GNOME_DIR = Path("/usr/share/gnome-mahjongg/themes")
XMAHJONGG_DIR = Path("/usr/share/games/xmahjongg/tiles")
#: Sets used when ``--art`` is not given, minus the held-out one.
REALISTIC_SETS = (
    "fluffy",
    "kmahjongg-default",
    "kmahjongg-traditional",
    "kmahjongg-jade",
    "gnome-postmodern",
    "gnome-smooth",
    "xmahjongg-real",
)
#: The art set held out of training by default, for validation on unseen art.
HELD_OUT = "gnome-postmodern"


class ArtError(ValueError):
    """An art set is unknown, not installed, or cannot be rendered."""


@dataclass
class ArtSet:
    """Face textures of one tile set.

    ``faces`` maps a tile code of :data:`vision.classes.CLASSES` (not ``back``) to a
    list of face variants (each ``(H, W, 3)`` uint8 RGB, portrait, upright).
    ``back`` is the face-down texture when the set has one (else the renderer paints
    a plain coloured back).
    """

    name: str
    faces: dict[str, list[Image]]
    back: Image | None = None
    #: Colour (RGB) of the face's background, used for the body's front layer.
    ivory: tuple[int, int, int] = (236, 234, 222)
    notes: list[str] = field(default_factory=list)

    @property
    def codes(self) -> tuple[str, ...]:
        """The tile codes this set can draw, in class order."""
        return tuple(c for c in CLASSES if c in self.faces)

    @property
    def has_bonus(self) -> bool:
        return all(b in self.faces for b in BONUS)


# ----------------------------------------------------------------------------- paths
def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    """``../shared`` beside the repository, or ``$TILECAM_SHARED``."""
    env = os.environ.get("TILECAM_SHARED")
    return Path(env) if env else repo_root().parent / "shared"


def cache_dir() -> Path:
    """Where rasterised faces are cached: ``$TILECAM_SYNTH_CACHE``, else
    ``datasets/build/art-cache`` in the repository (git-ignored), else (installed outside
    a checkout) ``~/.cache/tilecam/art``."""
    env = os.environ.get("TILECAM_SYNTH_CACHE")
    if env:
        return Path(env)
    if (repo_root() / "pyproject.toml").exists():
        return repo_root() / "datasets" / "build" / "art-cache"
    return Path.home() / ".cache" / "tilecam" / "art"  # installed outside a checkout


# ----------------------------------------------------------------------- rasterising
def _cairosvg() -> object:
    try:
        import cairosvg
    except (ImportError, OSError) as exc:  # OSError: libcairo missing
        raise ArtError(
            "SVG art needs cairosvg and libcairo2: pip install 'tilecam[dev]' "
            f"and apt-get install libcairo2 ({exc})"
        ) from None
    return cairosvg


def render_svg(svg: bytes, width: int, height: int) -> Image:
    """Rasterise SVG bytes to an RGBA uint8 array ``(height, width, 4)``."""
    cairosvg = _cairosvg()
    png = cairosvg.svg2png(  # type: ignore[attr-defined]
        bytestring=svg, output_width=width, output_height=height
    )
    arr = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if arr is None or arr.ndim != 3 or arr.shape[2] != 4:
        raise ArtError("cairosvg returned an unreadable PNG")
    return np.ascontiguousarray(arr[..., [2, 1, 0, 3]])  # BGRA -> RGBA


def _over(fg: Image, bg: Image) -> Image:
    """Alpha-composite RGBA ``fg`` over RGB(A) ``bg`` of the same size; returns RGB."""
    a = fg[..., 3:4].astype(np.float32) / 255.0
    out = fg[..., :3].astype(np.float32) * a + bg[..., :3].astype(np.float32) * (1 - a)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _alpha_bbox(rgba: Image, thresh: int = 8) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(rgba[..., 3] > thresh)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


class _Cache:
    """PNG cache of face textures, keyed by set name and source file fingerprint."""

    def __init__(self, name: str, sources: list[Path]) -> None:
        h = hashlib.sha1(name.encode())
        for s in sources:
            st = s.stat()
            h.update(f"{s}:{st.st_size}:{int(st.st_mtime)}".encode())
        h.update(str(FACE_HEIGHT).encode())
        self.dir = cache_dir() / f"{name}-{h.hexdigest()[:10]}"

    def load(self) -> dict[str, Image] | None:
        if not (self.dir / "done").exists():
            return None
        out: dict[str, Image] = {}
        for p in sorted(self.dir.glob("*.png")):
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                return None
            out[p.stem] = np.ascontiguousarray(img[..., ::-1])
        return out

    def save(self, images: dict[str, Image]) -> None:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            for key, img in images.items():
                cv2.imwrite(str(self.dir / f"{key}.png"), img[..., ::-1])
            (self.dir / "done").write_text("ok\n")
        except OSError:
            pass  # a read-only cache is fine: faces are re-rendered next time


def _cached(
    name: str, sources: list[Path], build: Callable[[], dict[str, Image]]
) -> dict[str, Image]:
    cache = _Cache(name, sources)
    got = cache.load()
    if got is not None:
        return got
    images = build()
    if images:
        cache.save(images)
    return images


# ---------------------------------------------------------------------- fluffystuff
_FLUFFY_NAMES = {
    **{f"Man{i}": f"{i}m" for i in range(1, 10)},
    **{f"Pin{i}": f"{i}p" for i in range(1, 10)},
    **{f"Sou{i}": f"{i}s" for i in range(1, 10)},
    "Ton": "E",
    "Nan": "S",
    "Shaa": "W",
    "Pei": "N",
    "Chun": "C",
    "Hatsu": "F",
    "Haku": "P",
}


def load_fluffy(root: Path | None = None) -> ArtSet:
    """FluffyStuff riichi tiles (CC0): faces on the ``Front`` body, ``Back`` for face-down."""
    base = (root or shared_dir() / "tileart") / "fluffystuff"
    if not (base / "Regular" / "Front.svg").exists():
        raise ArtError(f"fluffystuff art not found under {base} (set TILECAM_SHARED)")
    h = FACE_HEIGHT
    w = round(h * 0.75)
    variants = [v for v in ("Regular", "Black") if (base / v / "Front.svg").exists()]
    sources = [base / v / f"{n}.svg" for v in variants for n in [*_FLUFFY_NAMES, "Front", "Back"]]

    def build() -> dict[str, Image]:
        out: dict[str, Image] = {}
        for v in variants:
            front = render_svg((base / v / "Front.svg").read_bytes(), w, h)
            # Front is a rounded tile on transparency: flatten on its own edge colour.
            ivory = np.median(front[h // 2 - 5 : h // 2 + 5, 5 : w // 4, :3].reshape(-1, 3), axis=0)
            flat = np.empty((h, w, 3), np.uint8)
            flat[:] = ivory.astype(np.uint8)
            base_face = _over(front, flat)
            for stem, code in _FLUFFY_NAMES.items():
                face = render_svg((base / v / f"{stem}.svg").read_bytes(), w, h)
                out[f"{code}.{v}"] = _over(face, base_face)
            back = render_svg((base / v / "Back.svg").read_bytes(), w, h)
            out[f"back.{v}"] = _over(back, np.full((h, w, 3), 128, np.uint8))
        return out

    images = _cached("fluffy", sources, build)
    faces: dict[str, list[Image]] = {}
    backs: list[Image] = []
    for key, img in sorted(images.items()):
        code, _ = key.split(".", 1)
        if code == "back":
            backs.append(img)
        else:
            faces.setdefault(code, []).append(img)
    return ArtSet("fluffy", faces, back=backs[0] if backs else None, ivory=(240, 238, 230))


# ------------------------------------------------------------------------ kmahjongg
_KMJ_NAMES = {
    **{f"CHARACTER_{i}": f"{i}m" for i in range(1, 10)},
    **{f"ROD_{i}": f"{i}p" for i in range(1, 10)},
    **{f"BAMBOO_{i}": f"{i}s" for i in range(1, 10)},
    # KMahjongg numbers winds N S E W and dragons white, green, red (checked by eye
    # against the letters the "traditional" set prints on its faces).
    "WIND_1": "N",
    "WIND_2": "S",
    "WIND_3": "E",
    "WIND_4": "W",
    "DRAGON_1": "P",
    "DRAGON_2": "F",
    "DRAGON_3": "C",
    **{f"SEASON_{i}": f"{i}f" for i in range(1, 5)},
    **{f"FLOWER_{i}": f"{i + 4}f" for i in range(1, 5)},
}
_SVG_NS = "{http://www.w3.org/2000/svg}"


def _desktop(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(errors="replace").splitlines():
        if "=" in line and not line.startswith("["):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def kmahjongg_sets(root: Path = KMAHJONGG_DIR) -> list[str]:
    """Names of installed KMahjongg tilesets (``kmahjongg-<name>``)."""
    if not root.is_dir():
        return []
    return sorted(f"kmahjongg-{p.stem}" for p in root.glob("*.svgz") if _has_face_rects(p))


def _has_face_rects(path: Path) -> bool:
    """Whether a KMahjongg set marks its face rectangles (``facesize``); the sets that
    do not (``classic``) cannot be cropped reliably and are not offered."""
    try:
        return b"facesize" in gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return False


_Affine = tuple[float, float, float, float, float, float]


def _parse_transform(text: str | None) -> _Affine:
    """SVG ``transform`` (translate/scale/matrix lists) as an affine ``(a, b, c, d, e, f)``."""
    m: _Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for op, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text or ""):
        v = [float(x) for x in re.split(r"[\s,]+", args.strip()) if x]
        if op == "translate":
            t: _Affine = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif op == "scale":
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif op == "matrix" and len(v) == 6:
            t = (v[0], v[1], v[2], v[3], v[4], v[5])
        else:
            raise ArtError(f"unsupported SVG transform {op!r}")
        m = _compose(m, t)
    return m


def _compose(m: _Affine, t: _Affine) -> _Affine:
    """``m @ t`` for affines ``(a, b, c, d, e, f)`` = [[a c e], [b d f], [0 0 1]]."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = t
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def _chain(el: ET.Element, parents: dict[ET.Element, ET.Element]) -> _Affine:
    """Transform from ``el``'s own coordinates (its transform included) to the document."""
    chain = []
    node: ET.Element | None = el
    while node is not None:
        chain.append(_parse_transform(node.get("transform")))
        node = parents.get(node)
    m: _Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for t in reversed(chain):
        m = _compose(m, t)
    return m


def _kmj_face_box(target: ET.Element, parents: dict[ET.Element, ET.Element],
                  by_id: dict[str | None, ET.Element]) -> tuple[float, float, float, float] | None:
    """The face rectangle of a KMahjongg face element (its ``facesize`` rect or a clone
    of it), in document units ``(x, y, w, h)``; ``None`` when the set has none."""
    href_key = "{http://www.w3.org/1999/xlink}href"
    for el in target.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        label = el.get("{http://www.inkscape.org/namespaces/inkscape}label", "")
        if tag == "rect" and (el.get("id", "").startswith("facesize") or label == "facesize"):
            rect, m = el, _chain(el, parents)
        elif tag == "use" and (el.get(href_key) or el.get("href") or "").startswith("#facesize"):
            ref = by_id.get((el.get(href_key) or el.get("href") or "")[1:])
            if ref is None:
                continue
            m = _compose(_chain(el, parents), (1, 0, 0, 1, float(el.get("x", 0)),
                                               float(el.get("y", 0))))
            m = _compose(m, _parse_transform(ref.get("transform")))
            rect = ref
        else:
            continue
        x, y = float(rect.get("x", 0)), float(rect.get("y", 0))
        rw, rh = float(rect.get("width", 0)), float(rect.get("height", 0))
        a, b, c, d, e, f = m
        pts = ((x, y), (x + rw, y), (x, y + rh), (x + rw, y + rh))
        xs = [a * px + c * py + e for px, py in pts]
        ys = [b * px + d * py + f for px, py in pts]
        return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
    return None


def load_kmahjongg(name: str, root: Path = KMAHJONGG_DIR) -> ArtSet:
    """A KMahjongg tileset: each face element rendered alone and centred on an ivory face.

    The ``.desktop`` beside the set gives the face size (``TileFaceWidth/Height``); the
    face element is scaled to fit that box inside our own tile body.
    """
    path = root / f"{name}.svgz"
    desk = root / f"{name}.desktop"
    if not path.exists():
        raise ArtError(f"KMahjongg tileset {name!r} not installed ({path}); "
                       "apt-get install kdegames-mahjongg-data-kf5")
    meta = _desktop(desk) if desk.exists() else {}
    fw = float(meta.get("TileFaceWidth", 69))
    fh = float(meta.get("TileFaceHeight", 89))
    h = FACE_HEIGHT
    w = round(h * min(0.85, max(0.65, fw / fh)))
    # "jade" draws light art meant for a green jade body.
    bg = (34, 104, 74) if name == "jade" else (238, 236, 226)

    def build() -> dict[str, Image]:
        svg = gzip.decompress(path.read_bytes())
        root_el = ET.fromstring(svg)
        parents = {child: parent for parent in root_el.iter() for child in parent}
        ids = {el.get("id"): el for el in root_el.iter() if el.get("id") in _KMJ_NAMES}
        by_id = {el.get("id"): el for el in root_el.iter() if el.get("id")}
        for el in root_el.iter():
            if re.fullmatch(r"TILE_\d(_SEL)?", el.get("id") or ""):
                el.set("style", "display:none")
        out: dict[str, Image] = {}
        for el_id, code in _KMJ_NAMES.items():
            target = ids.get(el_id)
            if target is None:
                continue
            for other_id, other in ids.items():
                other.set("style", "display:inline" if other_id == el_id else "display:none")
            box = _kmj_face_box(target, parents, by_id)
            if box is None:
                continue
            bx, by, bw, bh = box
            root_el.set("viewBox", f"{bx} {by} {bw} {bh}")
            root_el.set("preserveAspectRatio", "none")
            art = render_svg(ET.tostring(root_el), w, h)
            out[code] = _over(art, np.full((h, w, 3), bg, np.uint8))
        return out

    ET.register_namespace("", "http://www.w3.org/2000/svg")
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    images = _cached(f"kmahjongg-{name}-v3", [path], build)
    if len(images) < 34:
        raise ArtError(f"KMahjongg tileset {name!r}: only {len(images)} faces found")
    return ArtSet(f"kmahjongg-{name}", {c: [img] for c, img in images.items()}, ivory=bg)


# -------------------------------------------------------------------------- gnome
#: Column order of gnome-mahjongg sprite sheets (43 columns).
GNOME_COLUMNS: tuple[str | None, ...] = (
    *(f"{i}p" for i in range(1, 10)),
    "N", "W", "S", "E", "C", "F",
    *(f"{i}m" for i in range(1, 10)),
    *(f"{i}s" for i in range(1, 10)),
    "5f", "6f", "7f", "8f",
    "P",
    "1f", "2f", "3f", "4f",
    None,  # blank
)
#: Face rectangle inside a sprite cell, as fractions (x0, y0, x1, y1): the cell also
#: shows the tile's bevel on its left and bottom edges.
_GNOME_FACE = {"postmodern": (0.14, 0.03, 0.97, 0.86), "smooth": (0.12, 0.03, 0.96, 0.87),
               "edu_kang_xi": (0.12, 0.03, 0.96, 0.87)}


def gnome_sets(root: Path = GNOME_DIR) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(f"gnome-{p.stem}" for p in root.iterdir() if p.suffix in (".svg", ".png"))


def load_gnome(theme: str, root: Path = GNOME_DIR) -> ArtSet:
    """A gnome-mahjongg theme: sprite sheet 43 columns x 2 rows; row 0 is used."""
    svg, png = root / f"{theme}.svg", root / f"{theme}.png"
    src = svg if svg.exists() else png
    if not src.exists():
        raise ArtError(f"gnome-mahjongg theme {theme!r} not installed ({root}); "
                       "apt-get install gnome-mahjongg")
    h = FACE_HEIGHT

    def build() -> dict[str, Image]:
        if src.suffix == ".svg":
            sheet = render_svg(src.read_bytes(), 43 * 200, 2 * 275)
        else:
            raw = cv2.imread(str(src), cv2.IMREAD_UNCHANGED)
            if raw is None or raw.ndim != 3 or raw.shape[2] != 4:
                raise ArtError(f"cannot read gnome-mahjongg theme {src}")
            sheet = np.ascontiguousarray(np.asarray(raw, np.uint8)[..., [2, 1, 0, 3]])
        cw, ch = sheet.shape[1] / 43, sheet.shape[0] / 2
        fx0, fy0, fx1, fy1 = _GNOME_FACE.get(theme, (0.12, 0.03, 0.96, 0.87))
        columns = list(GNOME_COLUMNS)
        if theme == "smooth":  # this theme draws its flowers as 蘭 菊 梅 竹
            columns[33:37] = ["6f", "7f", "5f", "8f"]
        if theme == "postmodern":  # seasons first (sun, snow, rain 一-四), then flowers
            columns[33:37] = ["1f", "2f", "3f", "4f"]
            columns[38:42] = ["5f", "6f", "7f", "8f"]
        out: dict[str, Image] = {}
        for col, code in enumerate(columns):
            if code is None:
                continue
            x0, x1 = round((col + fx0) * cw), round((col + fx1) * cw)
            y0, y1 = round(fy0 * ch), round(fy1 * ch)
            cell = sheet[y0:y1, x0:x1]
            rgb = _over(cell, np.full((*cell.shape[:2], 3), 230, np.uint8))
            w = round(h * (x1 - x0) / (y1 - y0))
            out[code] = np.asarray(cv2.resize(rgb, (w, h), interpolation=cv2.INTER_AREA),
                                   np.uint8)
        return out

    images = _cached(f"gnome-{theme}-v3", [src], build)
    ivory = tuple(int(v) for v in np.median(images["P"][5:15, 5:15].reshape(-1, 3), axis=0))
    return ArtSet(f"gnome-{theme}", {c: [img] for c, img in images.items()},
                  ivory=(ivory[0], ivory[1], ivory[2]))


# ---------------------------------------------------------------------- xmahjongg
#: Layout of xmahjongg's real.gif: 5 rows x 9 columns of 56x76 scans.
_XMJ_REAL: tuple[tuple[str | None, ...], ...] = (
    tuple(f"{i}p" for i in range(1, 10)),
    tuple(f"{i}s" for i in range(1, 10)),
    tuple(f"{i}m" for i in range(1, 10)),
    ("1f", "2f", "3f", "4f", "N", "S", "E", "W", None),
    ("5f", "6f", "7f", "8f", "F", "P", "C", None, None),
)


def _xmahjongg_gif(root: Path, name: str) -> Path:
    """``root / name``, an installed xmahjongg GIF; :class:`ArtError` when it is missing."""
    src = root / name
    if not src.exists():
        raise ArtError(f"xmahjongg art not installed ({src}); apt-get install xmahjongg")
    return src


def _read_gif(src: Path) -> Image:
    """The first frame of an xmahjongg GIF as RGB ``(H, W, 3)`` uint8."""
    cap = cv2.VideoCapture(str(src))
    ok, frame = cap.read()
    cap.release()
    if not ok or frame is None:
        raise ArtError(f"cannot read {src}")
    return np.ascontiguousarray(frame[..., ::-1])


def _face_height(cell: Image) -> Image:
    """A cut face scaled (cubic) to :data:`FACE_HEIGHT` rows, aspect kept."""
    w = round(FACE_HEIGHT * cell.shape[1] / cell.shape[0])
    return np.asarray(cv2.resize(cell, (w, FACE_HEIGHT), interpolation=cv2.INTER_CUBIC), np.uint8)


def load_xmahjongg_real(root: Path = XMAHJONGG_DIR) -> ArtSet:
    """xmahjongg ``real.gif``: photographic scans of a Chinese set, with bonus tiles."""
    src = _xmahjongg_gif(root, "real.gif")

    def build() -> dict[str, Image]:
        rgb = _read_gif(src)
        rows, cols = len(_XMJ_REAL), 9
        cw, ch = rgb.shape[1] / cols, rgb.shape[0] / rows
        out: dict[str, Image] = {}
        for r, row in enumerate(_XMJ_REAL):
            for c, code in enumerate(row):
                if code is None:
                    continue
                # Each cell holds a 56x76 scan with a thin gap; trim 3 px to lose the gap
                # and the scan's rounded corners.
                x0, x1 = round(c * cw) + 3, round((c + 1) * cw) - 4
                y0, y1 = round(r * ch) + 3, round((r + 1) * ch) - 4
                out[code] = _face_height(rgb[y0:y1, x0:x1])
        return out

    images = _cached("xmahjongg-real", [src], build)
    return ArtSet("xmahjongg-real", {c: [img] for c, img in images.items()},
                  ivory=(228, 230, 224))


#: xmahjongg's drawn sprite sheets (``<XMAHJONGG_DIR>/<name>.gif``): 21 columns × 4 rows,
#: rows 0–1 one colour of the set and rows 2–3 another (only the first, ivory-faced one
#: is used: the renderer draws one face colour per set). ``None`` marks a cell left out:
#: "gnome" draws its bonus tiles as bare characters with no number, "gnome2" as blank
#: faces with only a number, which no real set does (its white dragon is a blank face,
#: as on many real sets).
_XMJ_SHEETS: dict[str, tuple[tuple[str | None, ...], tuple[str | None, ...]]] = {
    "dorothys": (
        (*(f"{i}p" for i in range(1, 10)), "N", "W", "S", "E", "C", "F",
         *(f"{i}m" for i in range(1, 7))),
        ("7m", "8m", "9m", *(f"{i}s" for i in range(1, 10)), "1f", "2f", "3f", "4f", "P",
         "8f", "6f", "5f", "7f"),
    ),
    "gnome": (
        (*(f"{i}p" for i in range(1, 10)), "N", "W", "S", "E", "C", "F",
         *(f"{i}m" for i in range(1, 7))),
        ("7m", "8m", "9m", *(f"{i}s" for i in range(1, 10)), None, None, None, None, "P",
         None, None, None, None),
    ),
    "gnome2": (
        (*(f"{i}s" for i in range(1, 10)), "N", "W", "S", "E", "C", "F",
         *(f"{i}m" for i in range(1, 7))),
        ("7m", "8m", "9m", *(f"{i}p" for i in range(1, 10)), None, None, None, None, "P",
         None, None, None, None),
    ),
}
_XMJ_SHEETS["dorwhite"] = _XMJ_SHEETS["dorothys"]
#: Face rectangle inside a sheet cell as fractions (x0, y0, x1, y1): the cells also draw
#: the tile's bevel (right and bottom for Dorothy's sets, left and bottom for gnome's).
#: Dorothy's faces have rounded outlined corners, gnome's a highlight on the left and top.
_XMJ_SHEET_FACE = {"dorothys": (0.05, 0.04, 0.8, 0.84), "dorwhite": (0.05, 0.04, 0.8, 0.84),
                   "gnome": (0.15, 0.06, 0.92, 0.89), "gnome2": (0.1, 0.02, 0.925, 0.91)}


def load_xmahjongg_sheet(name: str, root: Path = XMAHJONGG_DIR) -> ArtSet:
    """One of xmahjongg's drawn sheets (:data:`_XMJ_SHEETS`): small pixel-art faces cut
    inside the drawn bevel (:data:`_XMJ_SHEET_FACE`), upscaled (cubic) to
    :data:`FACE_HEIGHT`; the set's ivory is the median colour of the faces' corners."""
    if name not in _XMJ_SHEETS:
        raise ArtError(f"unknown xmahjongg sheet {name!r}; known: {', '.join(_XMJ_SHEETS)}")
    src = _xmahjongg_gif(root, f"{name}.gif")
    layout, (fx0, fy0, fx1, fy1) = _XMJ_SHEETS[name], _XMJ_SHEET_FACE[name]

    def build() -> dict[str, Image]:
        rgb = _read_gif(src)
        cw, ch = rgb.shape[1] / 21, rgb.shape[0] / 4
        out: dict[str, Image] = {}
        for r, row in enumerate(layout):
            for c, code in enumerate(row):
                if code is None:
                    continue
                x0, y0 = c * cw, r * ch
                out[code] = _face_height(rgb[round(y0 + fy0 * ch):round(y0 + fy1 * ch),
                                             round(x0 + fx0 * cw):round(x0 + fx1 * cw)])
        return out

    images = _cached(f"xmahjongg-{name}", [src], build)
    corners = np.concatenate([f[:6, :6].reshape(-1, 3) for f in images.values()])
    ivory = tuple(int(v) for v in np.median(corners, axis=0))
    return ArtSet(f"xmahjongg-{name}", {c: [img] for c, img in images.items()},
                  ivory=(ivory[0], ivory[1], ivory[2]))


# ------------------------------------------------------------------------ procedural
@functools.cache
def _procedural_ready() -> bool:
    """Whether Pillow and a usable CJK font are installed (checked once per process)."""
    from vision.synth.procedural import ProceduralArtError, usable_fonts

    try:
        return bool(usable_fonts())
    except ProceduralArtError:
        return False


def load_procedural(styles: int = 24, seed: int = 0, pictures: str = "flower") -> ArtSet:
    """Faces drawn in ``styles`` random styles from the installed CJK fonts
    (:mod:`vision.synth.procedural`); one variant per style for every code. Named
    ``procedural[-seed]``, or ``pictorial-seed`` with the ``"varied"`` bonus pictures."""
    from vision.synth.procedural import ProceduralArtError, procedural_faces

    try:
        faces = procedural_faces(styles=styles, seed=seed, pictures=pictures)
    except ProceduralArtError as exc:
        raise ArtError(str(exc)) from None
    grounds = np.stack([f[:4, f.shape[1] // 2].mean(axis=0) for f in faces["P"]])
    ivory = tuple(int(v) for v in np.median(grounds, axis=0))
    name = "procedural" if seed == 0 else f"procedural-{seed}"
    if pictures == "varied":
        name = f"pictorial-{seed}"
    return ArtSet(name, faces, ivory=(ivory[0], ivory[1], ivory[2]))


# ------------------------------------------------------------------------ registry
def available_sets() -> list[str]:
    """Every art set name whose source files are present on this machine."""
    names: list[str] = []
    if (shared_dir() / "tileart" / "fluffystuff" / "Regular" / "Front.svg").exists():
        names.append("fluffy")
    names += kmahjongg_sets()
    names += gnome_sets()
    if (XMAHJONGG_DIR / "real.gif").exists():
        names.append("xmahjongg-real")
    names += [f"xmahjongg-{n}" for n in _XMJ_SHEETS if (XMAHJONGG_DIR / f"{n}.gif").exists()]
    if _procedural_ready():
        names.append("procedural")
    return names


def default_sets() -> list[str]:
    """The realistic sets installed here (training default removes :data:`HELD_OUT`)."""
    have = set(available_sets())
    return [n for n in REALISTIC_SETS if n in have]


def load_art(name: str) -> ArtSet:
    """Load one art set by name (see the module table); raises :class:`ArtError`."""
    if name == "fluffy":
        return load_fluffy()
    if name.startswith("kmahjongg-"):
        return load_kmahjongg(name.removeprefix("kmahjongg-"))
    if name.startswith("gnome-"):
        return load_gnome(name.removeprefix("gnome-"))
    if name == "xmahjongg-real":
        return load_xmahjongg_real()
    if name.startswith("xmahjongg-"):
        return load_xmahjongg_sheet(name.removeprefix("xmahjongg-"))
    if name == "procedural":
        return load_procedural()
    if re.fullmatch(r"procedural-\d+", name):
        return load_procedural(seed=int(name.removeprefix("procedural-")))
    if re.fullmatch(r"pictorial-\d+", name):
        return load_procedural(seed=int(name.removeprefix("pictorial-")), pictures="varied")
    raise _unknown_art(name)


def _unknown_art(name: str) -> ArtError:
    known = ", ".join(available_sets()) or "none installed"
    source = name.split("-")[0]
    source_missing = source in ("kmahjongg", "gnome", "xmahjongg") and not any(
        n.startswith(f"{source}-") for n in available_sets())
    if name in REALISTIC_SETS or source_missing:
        # a set of a source tilecam reads, not installed on this machine (a set of an
        # installed source that is not there is a name mistyped: "unknown")
        return ArtError(f"art set {name!r} is not installed here ({missing_art_hint(name)}); "
                        f"available: {known}")
    return ArtError(f"unknown art set {name!r}; available: {known}")


def missing_art_hint(name: str) -> str:
    """Where art set ``name`` (of :data:`REALISTIC_SETS`) comes from."""
    if name == "fluffy":
        return (f"the CC0 fluffystuff faces under {shared_dir() / 'tileart'}; set "
                "TILECAM_SHARED to the folder holding tileart/")
    package = {"kmahjongg": "kdegames-mahjongg-data-kf5", "gnome": "gnome-mahjongg",
               "xmahjongg": "xmahjongg"}[name.split("-")[0]]
    return f"apt-get install {package}"


def missing_default_sets() -> list[str]:
    """The realistic sets (:data:`REALISTIC_SETS`) not installed here: ``default`` leaves
    them out, so a set made here differs from one made where they are."""
    have = set(available_sets())
    return [n for n in REALISTIC_SETS if n not in have]


def check_art_names(names: Sequence[str]) -> None:
    """Raise :class:`ArtError` (as :func:`load_art` would) for a name that names no
    installed set, without loading any: a command checks its ``--art`` before it acts."""
    have = set(available_sets())
    for name in names:
        numbered = re.fullmatch(r"(procedural|pictorial)-\d+", name) and _procedural_ready()
        if name not in have and not numbered:
            raise _unknown_art(name)


def resolve_art_names(spec: str | None) -> list[str]:
    """Parse an ``--art`` value: comma-separated names, ``all`` (every installed set),
    ``default`` (realistic sets minus the held-out one), ``heldout`` (just that one), or
    ``-name`` items to remove. ``None`` means ``default``.

    >>> resolve_art_names("fluffy,xmahjongg-real")
    ['fluffy', 'xmahjongg-real']
    """
    items = [s.strip() for s in (spec or "default").split(",") if s.strip()]
    if not items:
        raise ArtError("--art is empty")
    out: list[str] = []
    for item in items:
        if item == "all":
            out += available_sets()
        elif item == "default":
            out += [n for n in default_sets() if n != HELD_OUT]
        elif item == "heldout":
            out.append(HELD_OUT)
        elif item.startswith("-"):
            out = [n for n in out if n != item[1:]]
        else:
            out.append(item)
    seen: list[str] = []
    for n in out:
        if n not in seen:
            seen.append(n)
    if not seen:
        if not available_sets():
            raise ArtError("no tile art installed: apt-get install kdegames-mahjongg-data-kf5 "
                           "gnome-mahjongg xmahjongg, or put ../shared/tileart beside the "
                           "repository (TILECAM_SHARED)")
        raise ArtError(f"--art {spec!r} selects no art set")
    return seen
