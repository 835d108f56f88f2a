"""A page's own settings in its link, through the same codec as the tuning page.

A page declares its settings as Params (copies of the family tables' rows, narrowed where the page
offers less, and a few view settings). :func:`read_link` decodes a link with
``svmcore.codec.decode_query`` and re-checks each value with the page's Param: an unknown key or a
refused value is one note naming its key, and that setting keeps its default. :func:`restore` puts
a link's values (or the defaults) into the page's widgets once per session; :func:`write` puts the
shown settings back into the URL with ``codec.to_query``.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import streamlit as st

from svmapp import settings as S
from svmapp import widgets as W
from svmcore import codec
from svmcore._validation import SVMCoreError
from svmcore.params import Param

SS = st.session_state


def _key_of(name: str, model: str, params: Sequence[Param]) -> str:
    for p in (*params, *codec.link_params(model)):
        if p.name == name and p.key is not None:
            return p.key
    return name


def read_link(query: Mapping[str, Any], model: str,
              params: Sequence[Param]) -> tuple[dict[str, Any], list[str]]:
    """({name: value} of the page's settings a link gives, one note per problem).

    ``model`` is the family whose tables the link's keys belong to; a link naming another model
    gets a note and is read as ``model``'s."""
    q = codec.last_values(query)
    notes = []
    if q.get("model", model) != model:
        notes.append(f"link key 'model': this page shows the {model} model, not {q['model']!r}; "
                     "it was ignored")
    q["model"] = model
    values, problems = codec.decode_query(q, extra=params, ignore=S.EVERY_PAGE_KEYS)  # the app reads those
    notes += problems
    page = {p.name: p for p in params}
    out = {}
    for name, v in values.items():
        if name == "model":
            continue
        key = _key_of(name, model, params)
        if name not in page:
            notes.append(f"link key {key!r} is not a setting of this page; it was ignored")
            continue
        try:
            out[name] = page[name].check(v)
        except SVMCoreError as exc:
            notes.append(f"link key {key!r}: {exc}; the default was used")
    return out, notes


def link_query(values: Mapping[str, Any], model: str, params: Sequence[Param]) -> dict[str, str]:
    """The link's parameters of a page's settings (the model first)."""
    return {"model": model, **codec.to_query(values, params)}


def restore(params: Sequence[Param], prefix: str, model: str) -> list[str]:
    """Widget state of the page's settings: on the page's first run in this session from the link
    (else each Param's default); later, a default for a widget Streamlit forgot. Returns the
    link's notes. ``SS[prefix + "from_link"]`` tells whether the link carried settings."""
    flag = prefix + "link_read"
    if not SS.get(flag):
        values, notes = read_link(st.query_params.to_dict(), model, params)
        SS[flag] = True
        SS[prefix + "link_notes"] = notes
        SS[prefix + "from_link"] = bool(values)
        for p in params:
            W.put(p, SS, values.get(p.name, p.default), prefix)
    for p in params:
        if W.key(p, prefix) not in SS:
            W.put(p, SS, p.default, prefix)
    return list(SS.get(prefix + "link_notes", []))


def values(params: Sequence[Param], prefix: str) -> dict[str, Any]:
    """{name: value} the page's widgets hold."""
    return {p.name: W.value(p, SS, prefix) for p in params}


def opened_from_link(prefix: str) -> bool:
    """True once, on the first run of a page opened from a link that carried settings."""
    return bool(SS.pop(prefix + "from_link", False))


def every_page_query() -> dict[str, str]:
    """Presentation mode (when on) and the lesson step being shown, as link parameters: the
    values of ``EVERY_PAGE_PARAMS`` not at their default."""
    vals = {p.name: SS.get(p.name) for p in S.EVERY_PAGE_PARAMS if SS.get(p.name) not in (None, p.default)}
    return codec.to_query(vals, S.EVERY_PAGE_PARAMS)


def write(values: Mapping[str, Any], model: str, params: Sequence[Param]) -> None:
    """Put the page's settings, presentation mode and the lesson step being shown into the URL (only
    when they changed)."""
    q = {**link_query(values, model, params), **every_page_query()}
    try:
        if dict(st.query_params.to_dict()) != q:
            st.query_params.from_dict(q)
    except Exception:  # a query the browser refuses must not break the page
        pass


def show_notes(notes: Sequence[str], container=st) -> None:
    """One info line per problem of the link (the text as typed, never Markdown)."""
    from svmapp.ui import plain
    for note in notes:
        container.info(plain(note), icon=":material/link_off:")
