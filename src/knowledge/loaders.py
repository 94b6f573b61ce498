"""Turn one file into text + title: Markdown, MDX, reStructuredText, plain text, PDF (pypdf),
HTML (BeautifulSoup) and Word .docx (python-docx).

Every loader yields Markdown-flavoured text (headings as `#` lines) so one chunker serves all
formats. Anything unusable raises `LoaderError` with a reason a user can act on.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from knowledge._mdx import mdx_to_markdown
from knowledge.errors import LoaderError
from knowledge.markup import clean_markup

SUPPORTED_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".pdf", ".html", ".htm", ".docx")

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Document:
    """A loaded file: its text (Markdown headings kept), a title and where it came from."""

    text: str
    title: str
    path: Path


def loader_suffix(path: Path, extra: dict[str, str] | None = None) -> str | None:
    """The built-in suffix whose loader reads `path` (`extra` maps more suffixes onto them)."""
    suffix = path.suffix.lower()
    if suffix in _LOADERS:
        return suffix
    mapped = (extra or {}).get(suffix)
    return mapped if mapped in _LOADERS else None


def is_supported(path: Path, extra: dict[str, str] | None = None) -> bool:
    return loader_suffix(path, extra) is not None


def _decode(raw: bytes, path: Path) -> str:
    if b"\x00" in raw[:8192]:
        raise LoaderError(path, "binary content (NUL bytes), not a text file")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoaderError(
            path, f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"
        ) from None


def _first_heading(text: str) -> str | None:
    match = _HEADING.search(text)
    return match.group(2).strip() if match else None


def _title_from_stem(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().capitalize() or path.name


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")


def _front_matter(text: str) -> tuple[str, dict[str, Any]]:
    """(text without its YAML front matter, the front matter as a mapping; {} when there is none
    or it is not YAML: the page is then read as it is)."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            try:
                meta = yaml.safe_load(text[4:end])
            except yaml.YAMLError:
                meta = None
            return text[end + 4 :].lstrip("-\n"), meta if isinstance(meta, dict) else {}
    return text, {}


def _field(meta: dict[str, Any], name: str) -> str | None:
    value = meta.get(name)
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) and str(value).strip() else None


def with_description(text: str, description: str | None) -> str:
    """`text`, or the front matter's `description:` under its title when the page has no text of
    its own (a GitBook page that is only a title and a summary is still indexed). A page with a
    body is read as it is: set as its lead paragraph, the description moved every chunk boundary
    after it and cost two Bitwarden answers for none gained (measured)."""
    if not description or re.search(r"\w", _HEADING.sub("", text)):
        return text
    return f"{text.rstrip()}\n\n{description}" if text.strip() else description


def _load_markdown(path: Path, raw: bytes) -> tuple[str, str | None]:
    text, meta = _front_matter(_decode(raw, path))
    title = _field(meta, "title")
    text = _LINK.sub(r"\1", clean_markup(text))  # templates resolved (knowledge.markup); link text kept
    if not re.search(r"\w", text) and title:
        text = f"# {title}"
    text = with_description(text, clean_markup(_field(meta, "description") or ""))
    return text, title or _first_heading(text)


def _load_mdx(path: Path, raw: bytes) -> tuple[str, str | None]:
    text, meta = _front_matter(_decode(raw, path))
    title = _field(meta, "title")
    text = _LINK.sub(r"\1", clean_markup(mdx_to_markdown(text)))
    text = with_description(text, clean_markup(_field(meta, "description") or ""))
    return text, title or _first_heading(text)


def _load_rst(path: Path, raw: bytes) -> tuple[str, str | None]:
    from knowledge._rst import rst_to_markdown  # lazy: docutils (+0.4 s) only for .rst files

    try:
        return rst_to_markdown(_decode(raw, path))
    except LoaderError:
        raise
    except Exception as exc:  # noqa: BLE001 - docutils raises its own SystemMessage / ValueError family
        raise LoaderError(path, f"unreadable reStructuredText ({type(exc).__name__}: {exc})") from None


def _load_docx(path: Path, raw: bytes) -> tuple[str, str | None]:
    from knowledge._docx import docx_to_markdown  # lazy: python-docx (+0.9 s) only for .docx files

    try:
        return docx_to_markdown(raw)
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise LoaderError(path, f"unreadable Word document ({type(exc).__name__}: {exc}); "
                                "save it again as .docx") from None


def _load_text(path: Path, raw: bytes) -> tuple[str, str | None]:
    text = _decode(raw, path)
    return text, _first_heading(text)


def _load_pdf(path: Path, raw: bytes) -> tuple[str, str | None]:
    from pypdf import PdfReader  # lazy: pypdf (+1.8 s) only for .pdf files
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            raise LoaderError(path, "encrypted PDF")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        title = (reader.metadata.title if reader.metadata else None) or None
    except LoaderError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise LoaderError(path, f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    return "\n\n".join(p for p in pages if p), (title.strip() if isinstance(title, str) else None)


def _load_html(path: Path, raw: bytes) -> tuple[str, str | None]:
    from bs4 import BeautifulSoup  # lazy: bs4 (+1.2 s) only for .html files

    soup = BeautifulSoup(_decode(raw, path), "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup(["script", "style", "noscript", "nav", "footer", "head", "template"]):
        tag.decompose()
    for level in range(1, 7):  # headings become Markdown headings for the chunker
        for tag in soup.find_all(f"h{level}"):
            tag.replace_with(f"\n\n{'#' * level} {tag.get_text(' ', strip=True)}\n\n")
    for tag in soup.find_all(["p", "li", "div", "section", "article", "tr", "br", "pre"]):
        tag.insert_before("\n\n" if tag.name != "li" else "\n- ")
        tag.insert_after("\n")
    text = re.sub(r"[ \t]+", " ", soup.get_text())
    text = re.sub(r"\n\s*\n\s*(\n\s*)+", "\n\n", text).strip()
    return text, title or _first_heading(text)


_LOADERS = {
    ".md": _load_markdown,
    ".markdown": _load_markdown,
    ".mdx": _load_mdx,
    ".rst": _load_rst,
    ".docx": _load_docx,
    ".txt": _load_text,
    ".pdf": _load_pdf,
    ".html": _load_html,
    ".htm": _load_html,
}


def load_document(path: Path, max_file_mb: float = 10.0, extra: dict[str, str] | None = None) -> Document:
    """Load `path` or raise `LoaderError` (unsupported, too large, binary, bad encoding, empty).

    `extra` maps more suffixes onto a built-in loader (RELAIS_KB_EXTENSIONS, e.g. `.mdoc=.md`)."""
    path = Path(path)
    suffix = loader_suffix(path, extra)
    loader = _LOADERS.get(suffix) if suffix else None
    if loader is None:
        raise LoaderError(path, f"unsupported file type {path.suffix or '(none)'}; "
                          f"supported: {', '.join(SUPPORTED_SUFFIXES)}")
    try:
        size = path.stat().st_size
        if size > max_file_mb * 1024 * 1024:
            raise LoaderError(path, f"too large ({size / 1024 / 1024:.1f} MB > {max_file_mb:g} MB, "
                              "MAX_FILE_MB)")
        raw = path.read_bytes()
    except OSError as exc:
        raise LoaderError(path, f"cannot read ({exc.strerror or exc})") from None
    text, title = loader(path, raw)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not re.search(r"\w", text):
        raise LoaderError(path, "empty (no text could be extracted)")
    return Document(text=text, title=(title or _title_from_stem(path)).strip(), path=path)
