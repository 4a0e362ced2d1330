"""Building `form:` and `multipart:` under a request (docs/spec/requests.md#body-forms): their
indented `name: value` lines, in written order, a name may repeat. Under `multipart:` a value
`file PATH [MEDIA/TYPE]` is a file part (a path with spaces is quoted), and a quoted value is a
text part (`note: "file me"` sends `file me`)."""

from __future__ import annotations

import re
import shlex

from scenario_core.language.builder.context import BuildContext, Entry, unquoted
from scenario_core.language.nodes.steps import FormField

BODY_FORMS = ("form", "multipart")
_MEDIA_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?")


def form_fields(ctx: BuildContext, entry: Entry) -> tuple[FormField, ...] | None:
    """The lines of `form:` or `multipart:` (entry.key says which); None after a located error."""
    keyword = entry.key
    if entry.value:
        ctx.error(
            ctx.loc(entry.token, entry.value_offset, len(entry.value)),
            f"'{keyword}:' stands alone on its line; put its `name: value` lines indented below it",
        )
        return None
    if not entry.children:
        ctx.error(ctx.whole(entry.token), f"'{keyword}:' needs `name: value` lines indented below it")
        return None
    fields: list[FormField] = []
    ok = True
    for child in entry.children:
        field = _field(ctx, child, keyword == "multipart")
        ok = ok and field is not None
        if field is not None:
            fields.append(field)
    return tuple(fields) if ok else None


def _field(ctx: BuildContext, entry: Entry, multipart: bool) -> FormField | None:
    where = "multipart:" if multipart else "form:"
    if entry.children:
        ctx.error(ctx.loc(entry.children[0].token), f"{where} lines do not nest; write each as `name: value`")
        return None
    text = str(entry.token)
    if ":" not in text:
        ctx.error(ctx.whole(entry.token), f"expected a `name: value` line in {where}")
        return None
    name, value, offset = entry.key, entry.value, entry.value_offset
    location = ctx.whole(entry.token)
    if not name or "{{" in name:
        ctx.error(ctx.loc(entry.token, 0, max(len(name), 1)), f"a {where[:-1]} field needs a plain name")
        return None
    if not multipart:
        template = ctx.template(entry.token, value, offset, location)
        return None if template is None else FormField(name, template, location)
    if value.startswith("file ") or value == "file":
        return _file_part(ctx, entry, name, value, offset)
    written = unquoted(value)
    template = ctx.template(entry.token, written, offset + (1 if written != value else 0), location)
    return None if template is None else FormField(name, template, location)


def _file_part(ctx: BuildContext, entry: Entry, name: str, value: str, offset: int) -> FormField | None:
    """`photo: file pets/rex.png image/png` or `photo: file "my pet.png"`."""
    rest = value[len("file") :].lstrip()
    start = offset + len(value) - len(rest)
    try:
        words = shlex.split(rest, posix=True)
    except ValueError:
        ctx.error(ctx.loc(entry.token, start, max(len(rest), 1)), "a file part's path has an unclosed quote")
        return None
    if not words or len(words) > 2:
        ctx.error(
            ctx.loc(entry.token, start, max(len(rest), 1)),
            'a file part reads `name: file PATH [MEDIA/TYPE]` (quote a path with spaces: file "my pet.png")',
        )
        return None
    path, media = words[0], (words[1] if len(words) == 2 else None)
    if media is not None and not _MEDIA_TYPE.fullmatch(media):
        ctx.error(
            ctx.loc(entry.token, start, len(rest)), f"'{media}' is not a media type (as in image/png or text/csv)"
        )
        return None
    location = ctx.loc(entry.token, start, len(rest))
    template = ctx.template(entry.token, path, start + (1 if rest[:1] in "\"'" else 0), location)
    return None if template is None else FormField(name, template, location, True, media)
