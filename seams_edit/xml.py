"""Byte-faithful load and save of BPMN and DMN payloads.

A modeler reviews the diff of every change seams makes, so saving must give
back the original bytes for everything an edit did not touch. lxml's own
serializer cannot: it rewrites the XML declaration, ``" />"`` into ``"/>"``
and the modeler's ``&#34;`` into ``&quot;``. So ``load_payload`` remembers the
raw text of every tag and text run next to the lxml tree, and ``save_payload``
writes that raw text wherever the tree still holds what was read; only what
an edit changed is written afresh, in the style Camunda Modeler (moddle-xml)
writes: double quotes, ``" />"`` for empty elements, ``&#34;``-style escapes
in attributes and ``&lt;``-style escapes in text.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lxml import etree

from seams.errors import EditError
from seams.model.payloads import parse_xml

XML_NS = "http://www.w3.org/XML/1998/namespace"
DEFAULT_INDENT = "  "

_TOKEN = re.compile(
    r"""(?P<comment><!--.*?-->)
      |(?P<cdata><!\[CDATA\[.*?\]\]>)
      |(?P<pi><\?.*?\?>)
      |(?P<end></[^>]*>)
      |(?P<start><[^!?/][^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>)
      |(?P<text>[^<]+)""",
    re.S | re.X,
)
_QNAME = re.compile(r"<([^\s/>]+)")
_CLOSER = re.compile(r"\s*/?>$")
_ATTRIBUTE = re.compile(r"""(\s+)([^\s=]+)(\s*=\s*)("[^"]*"|'[^']*')""")
_DECLARED_ENCODING = re.compile(rb"""<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']""")
_NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_NOT_XML_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTRIBUTE_ESCAPES = {"&": "&#38;", "<": "&#60;", ">": "&#62;", '"': "&#34;", "'": "&#39;",
                      "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}


@dataclass(frozen=True)
class _Tag:
    """A node as read: its start tag (or whole comment/PI), end tag, and tree state."""

    start: str
    end: str | None
    signature: tuple


@dataclass(frozen=True)
class _Text:
    """A text run (an element's text or tail) as read."""

    raw: str
    value: str
    cdata: bool


@dataclass
class Payload:
    """A parsed payload plus what is needed to write it back byte for byte.

    ``ensure_namespace`` replaces the root element, so read ``payload.root``
    afterwards instead of keeping the old root around.
    """

    tree: etree._ElementTree
    source: str
    encoding: str
    bom: bytes
    prolog: str = ""
    epilog: str = ""
    newline: str = "\n"
    empty_close: str = " />"
    _tags: dict = field(default_factory=dict, repr=False)
    _texts: dict = field(default_factory=dict, repr=False)

    @property
    def root(self) -> etree._Element:
        return self.tree.getroot()


def load_payload(data: bytes, *, source: str) -> Payload:
    """Parse ``data`` safely and remember its layout; refuse what cannot round-trip."""
    tree = parse_xml(data, source=source)
    bom, encoding = _encoding_of(data, source)
    try:
        document = data[len(bom):].decode(encoding)
    except UnicodeDecodeError as exc:
        raise EditError(f"{source}: not valid {encoding}: {exc.reason}") from None
    payload = Payload(tree=tree, source=source, encoding=encoding, bom=bom)
    _read_layout(payload, document)
    if save_payload(payload) != data:
        raise EditError(f"{source}: its layout cannot be kept byte for byte, so seams will not edit it")
    return payload


def save_payload(payload: Payload) -> bytes:
    """The payload's bytes: the original wherever the tree is unchanged."""
    out = [payload.prolog]
    _write_node(payload, payload.root, out)
    out.append(payload.epilog)
    return payload.bom + "".join(out).encode(payload.encoding, "xmlcharrefreplace")


def ensure_namespace(payload: Payload, prefix: str, uri: str) -> str:
    """Declare ``uri`` once on the root and return the prefix bound to it.

    A uri already bound on the root keeps its prefix; a taken prefix gets a
    ``_1`` suffix as moddle-xml does. lxml cannot add a declaration to an
    existing element, so the root is rebuilt with the extended nsmap and the
    children are moved over (their proxies stay valid).
    """
    if not _NCNAME.match(prefix) or prefix.lower().startswith("xml"):
        raise EditError(f"{payload.source}: {prefix!r} is not a usable namespace prefix")
    old = payload.root
    for bound_prefix, bound_uri in old.nsmap.items():
        if bound_prefix is not None and bound_uri == uri:
            return bound_prefix
    chosen, n = prefix, 1
    while chosen in old.nsmap:
        chosen, n = f"{prefix}_{n}", n + 1
    new = etree.Element(old.tag, nsmap={**old.nsmap, chosen: uri})
    for key, value in old.attrib.items():
        new.set(key, value)
    new.text = old.text
    for child in list(old):
        new.append(child)
    payload.tree = etree.ElementTree(new)
    if old in payload._tags:
        payload._tags[new] = payload._tags.pop(old)
    if (old, "text") in payload._texts:
        payload._texts[(new, "text")] = payload._texts.pop((old, "text"))
    return chosen


def insert_child(parent: etree._Element, new: etree._Element, index: int | None = None) -> None:
    """Insert ``new`` at ``index`` (default: last) indented like its siblings.

    Its descendants are indented one unit deeper per level, the unit being
    the one the document already uses; siblings written on one line keep
    the new element on that line too.
    """
    children = list(parent)
    index = len(children) if index is None else index
    if not 0 <= index <= len(children):
        raise EditError(f"element {parent.get('id', parent.tag)}: no child position {index}")
    unit = _indent_unit(parent)
    if not children:
        if (parent.text or "").strip():
            raise EditError(f"element {parent.get('id', parent.tag)}: has text, cannot add a child")
        outer = _indent_before(parent)
        parent.text = "\n" + outer + unit
        new.tail = "\n" + outer
        parent.append(new)
    elif index < len(children):
        new.tail = _whitespace_before(children[index])
        parent.insert(index, new)
    else:
        last = children[-1]
        new.tail, last.tail = last.tail, _whitespace_before(last)
        parent.append(new)
    if "\n" in _whitespace_before(new):
        _indent_subtree(new, _indent_before(new), unit)


def remove_child(element: etree._Element) -> None:
    """Remove ``element`` and its line, keeping the parent's closing indentation."""
    parent = element.getparent()
    previous = element.getprevious()
    if element.getnext() is None:
        if previous is None:
            parent.text = element.tail
        else:
            previous.tail = element.tail
    parent.remove(element)


def attribute_text(value: str) -> str:
    """``value`` escaped for a double-quoted attribute, as moddle-xml escapes it."""
    return "".join(_ATTRIBUTE_ESCAPES.get(ch, ch) for ch in value)


def check_characters(source: str, subject: str, values: Iterable[str]) -> None:
    """Refuse text XML 1.0 cannot hold (control characters), naming the element."""
    for value in values:
        if _NOT_XML_CHAR.search(value):
            raise EditError(f"{source}: {subject}: {value!r} has a character XML cannot hold")


def coordinate_text(value: float) -> str:
    """A diagram coordinate as the modelers write it: no '.0' on whole numbers."""
    value = round(value, 3)
    return str(int(value)) if value == int(value) else f"{value:.3f}".rstrip("0")


def _text(value: str) -> str:
    return "".join(_TEXT_ESCAPES.get(ch, ch) for ch in value)


# -- reading the layout ---------------------------------------------------------------


def _encoding_of(data: bytes, source: str) -> tuple[bytes, str]:
    if data.startswith(codecs.BOM_UTF8):
        return codecs.BOM_UTF8, "utf-8"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise EditError(f"{source}: UTF-16 payloads are not supported for editing")
    match = _DECLARED_ENCODING.match(data)
    name = match.group(1).decode("ascii") if match else "utf-8"
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise EditError(f"{source}: unknown encoding {name!r}") from None
    if codec.startswith(("utf-16", "utf-32")):
        raise EditError(f"{source}: {name} payloads are not supported for editing")
    return b"", codec


def _read_layout(payload: Payload, document: str) -> None:
    """Pair every token of ``document`` with the tree node or text run it made."""
    source = payload.source
    nodes = payload.root.iter()
    stack: list[tuple[etree._Element, str]] = []
    slot: tuple[etree._Element, str] | None = None
    pieces: list[tuple[str, str]] = []
    root_start = None
    position = 0
    while position < len(document):
        match = _TOKEN.match(document, position)
        if match is None:
            raise EditError(f"{source}: unreadable markup at character {position}")
        position = match.end()
        kind, raw = match.lastgroup, match.group()
        if root_start is None:
            if kind == "start":
                root_start = match.start()
                payload.prolog = document[:root_start]
            else:
                continue
        if kind in ("text", "cdata"):
            pieces.append((kind, raw))
            continue
        if slot is not None:
            _keep_text(payload, slot, pieces)
        pieces = []
        if kind == "end":
            node, start = stack.pop()
            payload._tags[node] = _Tag(start, raw, _signature(node))
            slot = (node, "tail")
            if not stack:
                payload.epilog = document[position:]
                break
            continue
        node = next(nodes, None)
        if node is None or kind is None or not _same_kind(node, kind, raw):
            raise EditError(f"{source}: markup and tree disagree at character {match.start()}")
        if kind == "start" and not raw.endswith("/>"):
            stack.append((node, raw))
            slot = (node, "text")
            continue
        payload._tags[node] = _Tag(raw, None, _signature(node))
        slot = (node, "tail")
        if node is payload.root:
            payload.epilog = document[position:]
            break
    payload.newline = "\r\n" if "\r\n" in document else "\n"
    closes = [tag.start for tag in payload._tags.values() if tag.end is None and tag.start.endswith("/>")]
    tight = sum(1 for start in closes if not start.endswith(" />"))
    payload.empty_close = "/>" if tight > len(closes) - tight else " />"


def _keep_text(payload: Payload, slot: tuple[etree._Element, str], pieces: list[tuple[str, str]]) -> None:
    node, which = slot
    raw = "".join(text for _, text in pieces)
    cdata = len(pieces) == 1 and pieces[0][0] == "cdata"
    payload._texts[slot] = _Text(raw, getattr(node, which) or "", cdata)


def _found(pattern: re.Pattern[str], text: str) -> re.Match[str]:
    """``pattern`` (anchored, or searched for its ``$``) in a tag the scanner already read,
    where it always matches; an EditError rather than an AttributeError if it ever does not."""
    match = pattern.search(text)
    if match is None:
        raise EditError(f"markup {text[:40]!r}: not a tag")
    return match


def _same_kind(node: etree._Element, kind: str, raw: str) -> bool:
    if kind == "comment":
        return isinstance(node, etree._Comment)
    if kind == "pi":
        return isinstance(node, etree._ProcessingInstruction)
    if not isinstance(node.tag, str):
        return False
    return _found(_QNAME, raw).group(1).rpartition(":")[2] == etree.QName(node).localname


def _signature(node: etree._Element) -> tuple:
    if isinstance(node, etree._Comment):
        return ("comment", node.text)
    if isinstance(node, etree._ProcessingInstruction):
        return ("pi", node.target, node.text)
    return (node.tag, tuple(node.attrib.items()), _local_namespaces(node))


def _local_namespaces(node: etree._Element) -> tuple[tuple[str, str], ...]:
    parent = node.getparent()
    outer = parent.nsmap if parent is not None else {}
    return tuple((p or "", u) for p, u in node.nsmap.items() if outer.get(p) != u)


# -- writing ---------------------------------------------------------------------


def _write_node(payload: Payload, node: etree._Element, out: list[str]) -> None:
    tag = payload._tags.get(node)
    unchanged = tag is not None and tag.signature == _signature(node)
    if isinstance(node, etree._Comment):
        out.append(tag.start if tag is not None and unchanged else f"<!--{node.text}-->")
        return
    if isinstance(node, etree._ProcessingInstruction):
        text = f" {node.text}" if node.text else ""
        out.append(tag.start if tag is not None and unchanged else f"<?{node.target}{text}?>")
        return
    if tag is None:
        head, end = _fresh_head(node), f"</{_qualified_name(node)}>"
        empty_closer, open_closer = payload.empty_close, ">"
    else:
        closer = _found(_CLOSER, tag.start).group()
        head = tag.start[: -len(closer)] if unchanged else _patched_head(payload, node, tag)
        if tag.end is None:
            end = f"</{_found(_QNAME, tag.start).group(1)}>"
            empty_closer, open_closer = closer, ">"
        else:
            end, empty_closer, open_closer = tag.end, None, closer
    if empty_closer is not None and len(node) == 0 and not node.text:
        out.append(head + empty_closer)
        return
    out.append(head + open_closer)
    _write_text(payload, node, "text", out)
    for child in node:
        _write_node(payload, child, out)
        _write_text(payload, child, "tail", out)
    out.append(end)


def _write_text(payload: Payload, node: etree._Element, which: str, out: list[str]) -> None:
    value = getattr(node, which) or ""
    kept = payload._texts.get((node, which))
    if kept is not None and kept.value == value:
        out.append(kept.raw)
    elif kept is not None and kept.cdata and value and "]]>" not in value:
        out.append(f"<![CDATA[{value}]]>")
    else:
        out.append(_text(value).replace("\n", payload.newline))


def _fresh_head(node: etree._Element) -> str:
    parts = [f"<{_qualified_name(node)}"]
    parts += [_declaration(prefix, uri) for prefix, uri in _local_namespaces(node)]
    parts += [f' {_attribute_name(node, key)}="{attribute_text(value)}"' for key, value in node.attrib.items()]
    return "".join(parts)


def _patched_head(payload: Payload, node: etree._Element, tag: _Tag) -> str:
    """The start tag as read, with only the changed attributes and declarations rewritten."""
    start = tag.start
    qname = _found(_QNAME, start).group(1)
    body = start[len(qname) + 1:_found(_CLOSER, start).start()]
    old_values = dict(tag.signature[1])
    current = dict(node.attrib)
    parts, declared, seen, after_declarations = [f"<{qname}"], set(), set(), 1
    covered = 0
    for match in _ATTRIBUTE.finditer(body):
        if match.start() != covered:
            raise EditError(f"{payload.source}: cannot read the start tag of {qname}")
        covered = match.end()
        space, name, equals, quoted = match.groups()
        if name == "xmlns" or name.startswith("xmlns:"):
            parts.append(match.group())
            declared.add(name.partition(":")[2])
            after_declarations = len(parts)
            continue
        key = _clark(payload, node, name)
        seen.add(key)
        if key not in current:
            continue
        if old_values.get(key) == current[key]:
            parts.append(match.group())
        else:
            quote = quoted[0]
            parts.append(f"{space}{name}{equals}{quote}{attribute_text(current[key])}{quote}")
    new_declarations = [_declaration(p, u) for p, u in _local_namespaces(node) if p not in declared]
    parts[after_declarations:after_declarations] = new_declarations
    parts += [f' {_attribute_name(node, key)}="{attribute_text(value)}"'
              for key, value in node.attrib.items() if key not in seen]
    return "".join(parts) + body[covered:]


def _declaration(prefix: str, uri: str) -> str:
    return f' xmlns{":" + prefix if prefix else ""}="{attribute_text(uri)}"'


def _clark(payload: Payload, node: etree._Element, name: str) -> str:
    prefix, _, local = name.rpartition(":")
    if not prefix:
        return name
    uri = XML_NS if prefix == "xml" else node.nsmap.get(prefix)
    if uri is None:
        raise EditError(f"{payload.source}: prefix {prefix} is not declared for {name}")
    return f"{{{uri}}}{local}"


def _qualified_name(node: etree._Element) -> str:
    qname = etree.QName(node)
    return f"{node.prefix}:{qname.localname}" if node.prefix else qname.localname


def _attribute_name(node: etree._Element, key: str) -> str:
    qname = etree.QName(key)
    if qname.namespace is None:
        return key
    if qname.namespace == XML_NS:
        return f"xml:{qname.localname}"
    prefixes = sorted(p for p, u in node.nsmap.items() if p is not None and u == qname.namespace)
    if not prefixes:
        raise EditError(f"element {node.get('id', node.tag)}: namespace {qname.namespace} is not declared for {key}")
    return f"{prefixes[0]}:{qname.localname}"


# -- indentation -------------------------------------------------------------------


def _whitespace_before(node: etree._Element) -> str:
    previous = node.getprevious()
    return (previous.tail if previous is not None else node.getparent().text) or ""


def _indent_before(node: etree._Element) -> str:
    """The indentation of ``node``'s line ('' for the root or an inline node)."""
    if node.getparent() is None:
        return ""
    whitespace = _whitespace_before(node)
    return whitespace.rpartition("\n")[2] if "\n" in whitespace and not whitespace.strip() else ""


def _indent_unit(node: etree._Element) -> str:
    """The step between an element's indentation and its children's, nearest first."""
    for ancestor in [node, *node.iterancestors()]:
        if len(ancestor):
            outer, inner = _indent_before(ancestor), _indent_before(ancestor[0])
            if len(inner) > len(outer) and inner.startswith(outer):
                return inner[len(outer):]
    return DEFAULT_INDENT


def _indent_subtree(node: etree._Element, indent: str, unit: str) -> None:
    children = list(node)
    if not children:
        return
    if not (node.text or "").strip():
        node.text = "\n" + indent + unit
    for child in children:
        child.tail = "\n" + indent + unit
        _indent_subtree(child, indent + unit, unit)
    children[-1].tail = "\n" + indent
