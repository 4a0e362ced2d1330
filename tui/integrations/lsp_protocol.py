"""pygls's language-server protocol with two repairs the server needs to run for days:

- handler futures are forgotten once done. pygls (2.1) files the future of every async or
  generator handler under the message's id in `_request_futures` and removes it only when it
  answers a request: a notification's futures (two per `didChange`: pygls's own generator, which
  updates the workspace, and our async handler) stay forever, about 2.7 KB an edit;
- a message whose params do not fit its method (`textDocument/hover` without a position) is
  answered InvalidParams with one log line, where pygls logs two tracebacks and never answers.

Both override private pygls methods; tests/tui/test_lsp_hardening.py drives a real server through
each, so a pygls release that moves them fails there, not in an editor."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cattrs import transform_error
from cattrs.errors import BaseValidationError
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

if TYPE_CHECKING:
    from pygls.protocol.json_rpc import MessageCallback, MessageHandler, MsgId, RPCMessage

logger = logging.getLogger("scenario_tui.lsp")

# Done futures are swept when the table reaches this size, then at twice what a sweep leaves:
# constant work per message, and the table stays as small as the requests really in flight.
_FIRST_SWEEP = 64


@dataclass(frozen=True)
class UnfitMessage:
    """What a request or notification becomes when its params do not fit its method."""

    id: object  # as the client sent it: answered only when it is a request's (an int or a str)
    method: str
    reason: str


class ScenarioProtocol(LanguageServerProtocol):
    _sweep_at = _FIRST_SWEEP

    def _execute_handler(
        self,
        msg_id: MsgId,
        handler: MessageHandler,
        callback: MessageCallback,
        args: tuple[object, ...] | None = None,
        kwargs: dict[str, object] | None = None,
    ) -> None:
        self._forget_finished()
        super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def _forget_finished(self) -> None:
        # Swept here, between messages, never from a done callback: pygls's `shutdown` iterates
        # the table while cancelling, and a callback that deleted from it would break that loop.
        futures = self._request_futures
        if len(futures) < self._sweep_at:
            return
        for msg_id, future in list(futures.items()):
            if future.done():
                futures.pop(msg_id, None)
        self._sweep_at = max(_FIRST_SWEEP, 2 * len(futures))

    def structure_message(self, data: dict[str, object]) -> object:  # (handed to handle_message)
        method = data.get("method") if "jsonrpc" in data else None
        message_type = self.get_message_type(method) if isinstance(method, str) else None
        if message_type is None:  # responses and methods without params types: pygls's own way
            return super().structure_message(data)
        try:
            return self._converter.structure(data, message_type)
        except Exception as error:  # cattrs' ClassValidationError, or a field's own TypeError/ValueError
            return UnfitMessage(data.get("id"), str(method), _reason(error))

    def handle_message(self, message: RPCMessage | UnfitMessage) -> None:
        if isinstance(message, UnfitMessage):
            logger.warning("scenario-tui lsp: answered InvalidParams to %s: %s", message.method, message.reason)
            if isinstance(message.id, (int, str)) and not isinstance(message.id, bool):
                error = types.ResponseError(
                    code=types.ErrorCodes.InvalidParams, message=f"{message.method}: {message.reason}"
                )
                self._send_response(message.id, error=error)
            return
        super().handle_message(message)


def _reason(error: Exception) -> str:
    """One line: cattrs's own summary names the fields (`required field missing @ $.params.position`)."""
    found = transform_error(error) if isinstance(error, BaseValidationError) else [str(error).strip()]
    text = "; ".join(line for found_line in found for line in found_line.splitlines()[:1])
    return (text[:300] + "...") if len(text) > 300 else text or type(error).__name__
