"""Runs zulip-terminal's own Model (zulipterminal/model.py and helper.py, taken unchanged from
its repository into ZT_SOURCES) against a running Confab, the way the terminal client drives it,
without its urwid screen. Not run in CI; scripts/zulip_terminal_check.sh starts it.

What is not zulip-terminal's code here, and why:
- `zulip`: PyPI is out of reach and the source index holds no 0.9.x copy of the package, so a
  small client stands in for it, encoding requests as zulip 0.9.x does (every non-string
  parameter JSON-encoded, form body for POST/PATCH/DELETE, query string for GET, basic auth,
  the caller's client name as User-Agent, `None` parameters dropped).
- the screen: `ui_tools.utils.create_msg_box_list` (builds urwid widgets), `config.keys` (key
  names for notices) and `unicode_emojis` (a 4,000-line data table) are replaced by stubs, and
  the Controller by a recorder whose `view` absorbs every call, so the Model's event handlers
  run their whole path (view updates included) without a terminal.
- `Model.muted_users`: the helper.py the index holds is a few months newer than this model.py
  and reads that attribute (an empty set in the client of that time).

Every check prints one line; the exit status is the number of failed checks.
"""

import json
import os
import platform
import sys
import threading
import time
import traceback
import types
import urllib.parse
from typing import Any, Callable, Dict, List, Optional

import requests

SOURCES = os.environ.get("ZT_SOURCES", "/work/ext")
SITE = os.environ["ZT_SITE"]
TERRY = (os.environ["ZT_EMAIL"], os.environ["ZT_KEY"])
BOB = (os.environ["ZT_OTHER_EMAIL"], os.environ["ZT_OTHER_KEY"])
STREAM = os.environ.get("ZT_STREAM", "general")


# ---------------------------------------------------------------------------------------------
# Stand-in for the `zulip` package (0.9.x): the calls zulipterminal/model.py makes.


class ZulipError(Exception):
    pass


class Client:
    def __init__(self, email: str, api_key: str, site: str, client: str) -> None:
        self.email = email
        self.api_key = api_key
        self.client_name = client
        self.base_url = site.rstrip("/") + "/api/"
        self.session = requests.Session()
        self.session.auth = requests.auth.HTTPBasicAuth(email, api_key)
        self.session.headers["User-Agent"] = f"{client} (zulip-0.9.1 stand-in)"
        self.requests: List[str] = []

    def call_endpoint(
        self, url: str, method: str = "POST", request: Optional[Dict[str, Any]] = None,
        longpolling: bool = False, timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        encoded = {
            k: v if isinstance(v, str) else json.dumps(v)
            for k, v in (request or {}).items()
            if v is not None
        }
        where = "params" if method == "GET" else "data"
        self.requests.append(f"{method} /api/v1/{url}")
        try:
            res = self.session.request(
                method, urllib.parse.urljoin(self.base_url, "v1/" + url),
                timeout=timeout or (90 if longpolling else 15), **{where: encoded},
            )
        except requests.RequestException as e:
            raise ZulipError(str(e))
        try:
            return res.json()
        except ValueError:
            return {"result": "http-error", "msg": f"{res.status_code} {res.text[:200]}"}

    def register(self, event_types: Any = None, narrow: Any = None, **kwargs: Any) -> Dict[str, Any]:
        request = dict(event_types=event_types, narrow=narrow or [], **kwargs)
        return self.call_endpoint("register", request=request)

    def get_events(self, **request: Any) -> Dict[str, Any]:
        return self.call_endpoint("events", "GET", request, longpolling=True)

    def deregister(self, queue_id: str, timeout: Optional[float] = None) -> Dict[str, Any]:
        return self.call_endpoint("events", "DELETE", {"queue_id": queue_id}, timeout=timeout)

    def get_messages(self, message_filters: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint("messages", "GET", message_filters)

    def send_message(self, message_data: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint("messages", request=message_data)

    def update_message(self, message_data: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint(f"messages/{message_data['message_id']}", "PATCH", message_data)

    def get_raw_message(self, message_id: int) -> Dict[str, Any]:
        return self.call_endpoint(f"messages/{message_id}", "GET")

    def get_message_history(self, message_id: int) -> Dict[str, Any]:
        return self.call_endpoint(f"messages/{message_id}/history", "GET")

    def update_message_flags(self, update_data: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint("messages/flags", request=update_data)

    def add_reaction(self, reaction_data: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint(f"messages/{reaction_data['message_id']}/reactions", request=reaction_data)

    def remove_reaction(self, reaction_data: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint(f"messages/{reaction_data['message_id']}/reactions", "DELETE", reaction_data)

    def update_presence(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint("users/me/presence", request=request)

    def set_typing_status(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return self.call_endpoint("typing", request=request)

    def get_stream_topics(self, stream_id: int) -> Dict[str, Any]:
        return self.call_endpoint(f"users/me/{stream_id}/topics", "GET")

    def update_subscription_settings(self, subscription_data: List[Dict[str, Any]]) -> Dict[str, Any]:
        return self.call_endpoint("users/me/subscriptions/properties", request={"subscription_data": subscription_data})


def install_stand_ins() -> None:
    zulip = types.ModuleType("zulip")
    zulip.Client = Client  # type: ignore[attr-defined]
    zulip.ZulipError = ZulipError  # type: ignore[attr-defined]
    for name in ("EditPropagateMode", "EmojiType", "MessageFlag", "ModifiableMessageFlag"):
        setattr(zulip, name, str)
    sys.modules["zulip"] = zulip

    keys = types.ModuleType("zulipterminal.config.keys")
    keys.primary_key_for_command = lambda command: command  # type: ignore[attr-defined]
    sys.modules["zulipterminal.config.keys"] = keys

    ui_tools = types.ModuleType("zulipterminal.ui_tools")
    ui_tools.__path__ = []  # type: ignore[attr-defined]
    utils = types.ModuleType("zulipterminal.ui_tools.utils")
    utils.create_msg_box_list = lambda *args, **kwargs: []  # type: ignore[attr-defined]
    sys.modules["zulipterminal.ui_tools"] = ui_tools
    sys.modules["zulipterminal.ui_tools.utils"] = utils

    emojis = types.ModuleType("zulipterminal.unicode_emojis")
    emojis.EMOJI_DATA = {  # type: ignore[attr-defined]
        "+1": {"code": "1f44d", "aliases": ["thumbs_up", "like"]},
        "smile": {"code": "1f604", "aliases": []},
    }
    sys.modules["zulipterminal.unicode_emojis"] = emojis


# ---------------------------------------------------------------------------------------------
# The Controller's side: what the Model calls back into.


class Absorber:
    """Any attribute, call, item or sum: itself; false when tested, so optional UI work is skipped."""

    def __getattr__(self, name: str) -> "Absorber":
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> "Absorber":
        return self

    def __getitem__(self, key: Any) -> "Absorber":
        return self

    def __add__(self, other: Any) -> "Absorber":
        return self

    __radd__ = __add__

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Any:
        return iter(())


class Controller:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.notify_enabled = False
        self.active_conversation_info: Dict[str, Any] = {}
        self.is_typing_notification_in_progress = False
        self.footer: List[Any] = []
        self.thread_errors: List[str] = []
        self.typing_shown = 0

    def report_success(self, text: Any, duration: int = 3) -> None:
        self.footer.append(("success", text))

    def report_error(self, text: Any, duration: int = 3) -> None:
        self.footer.append(("error", text))

    def report_warning(self, text: Any, duration: int = 3) -> None:
        self.footer.append(("warning", text))

    def update_screen(self) -> None:
        pass

    def popup_with_message(self, text: str, width: int) -> None:
        self.footer.append(("popup", text))

    def show_typing_notification(self) -> None:
        self.typing_shown += 1

    def raise_exception_in_main_thread(self, exc_info: Any, *, critical: bool) -> None:
        self.thread_errors.append("".join(traceback.format_exception(*exc_info)))

    def narrow_to_topic(self, **kwargs: Any) -> None:
        pass


# ---------------------------------------------------------------------------------------------


failures = 0


def check(name: str, ok: bool, detail: Any = "") -> None:
    global failures
    failures += 0 if ok else 1
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  [{detail}]" if detail != "" else ""), flush=True)


def wait_for(predicate: Callable[[], bool], seconds: float = 8.0) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def api(who: tuple, method: str, path: str, **params: Any) -> Dict[str, Any]:
    data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    where = "params" if method == "GET" else "data"
    res = requests.request(method, f"{SITE}/api/v1/{path}", auth=who, timeout=15, **{where: data})
    return res.json()


def main() -> int:
    sys.path.insert(0, SOURCES)
    install_stand_ins()
    from zulipterminal.model import Model
    from zulipterminal.version import ZT_VERSION

    Model.muted_users = set()  # see the module's docstring
    client = Client(TERRY[0], TERRY[1], SITE, f"ZulipTerminal/{ZT_VERSION} {platform.platform()}")
    controller = Controller(client)
    print(f"zulip-terminal {ZT_VERSION} Model against {SITE} as {TERRY[0]}")

    # Start-up: what crashed in issue #14 (KeyError: 'twenty_four_hour_time').
    try:
        model = Model(controller)
    except Exception:
        check("start-up: Model(controller) registers and reads the initial data", False, traceback.format_exc())
        return failures
    controller.model = model
    check("start-up: Model(controller) registers and reads the initial data", True)
    check("server version and feature level", bool(model.server_version) and model.server_feature_level is not None,
          f"{model.server_version}, {model.server_feature_level}")
    settings = model.user_settings()
    check("settings read from the top level of /register", isinstance(settings["twenty_four_hour_time"], bool), settings)
    streams = [s["name"] for s in model.pinned_streams + model.unpinned_streams]
    check("channels listed", STREAM in streams, streams)
    check("users listed", any(u["email"] == BOB[0] for u in model.users), [u["full_name"] for u in model.users])
    counts = model.unread_counts
    check("unread counts from unread_msgs (mention, DM, group DM, topic)",
          (counts["all_mentions"], counts["all_pms"], len(counts["unread_huddles"]), len(counts["unread_topics"])) == (1, 2, 1, 1),
          {k: v for k, v in counts.items()})

    # From here on the Controller has its screen (absorbed), as after View(self), and polls events.
    controller.view = Absorber()
    controller.loop = Absorber()
    model.poll_for_events()

    # A channel topic, as narrow_to_topic opens it.
    model.set_narrow(stream=STREAM, topic="terminal")
    check("topic narrow fetch", model.get_messages(num_before=30, num_after=10, anchor=None) == "")
    before = model.get_message_ids_in_current_narrow()
    print(f"      messages in #{STREAM} > terminal: {len(before)}")

    sent = model.send_stream_message(STREAM, "terminal", "Sent from zulip-terminal's Model")
    check("send to a channel topic", sent is True, controller.footer[-1:] if not sent else "")
    seen = api(BOB, "GET", "messages", anchor="newest", num_before=5, num_after=0,
               narrow=[["stream", STREAM], ["topic", "terminal"]])
    check("... and the other user reads it through the API",
          any(m["content"] == "<p>Sent from zulip-terminal's Model</p>" for m in seen.get("messages", [])),
          seen.get("msg", ""))

    # A message from someone else arrives live, through the event queue.
    posted = api(BOB, "POST", "messages", type="stream", to=STREAM, topic="terminal", content="Hello, terminal")
    check("live: another user's channel message reaches the Model",
          wait_for(lambda: posted.get("id") in model.index["messages"]), posted)
    if posted.get("id") in model.index["messages"]:
        msg = model.index["messages"][posted["id"]]
        check("... with its sender, topic and rendered content",
              (msg["sender_email"], msg["subject"], msg["content"]) == (BOB[0], "terminal", "<p>Hello, terminal</p>"),
              (msg.get("sender_email"), msg.get("subject"), msg.get("content")))
        check("... counted unread", model.unread_counts["unread_topics"].get((msg["stream_id"], "terminal"), 0) >= 1,
              model.unread_counts["unread_topics"])

    # Reactions, stars and edits come back as events the Model applies.
    mine = seen["messages"][-1]["id"] if seen.get("messages") else None
    if mine is not None:
        api(BOB, "POST", f"messages/{mine}/reactions", emoji_name="smile")
        check("live: a reaction event (its legacy `user` object read)",
              wait_for(lambda: len(model.index["messages"].get(mine, {}).get("reactions", [])) > 0),
              model.index["messages"].get(mine, {}).get("reactions"))
        model.toggle_message_star_status(model.index["messages"][mine])
        check("live: starring, applied from the update_message_flags event",
              wait_for(lambda: mine in model.index["starred_msg_ids"]))
        edited = model.update_stream_message("terminal", mine, "change_one", "Edited from the Model")
        check("edit a message", edited is True, controller.footer[-1:])
        check("live: the edit's rendered content",
              wait_for(lambda: model.index["messages"][mine].get("content") == "<p>Edited from the Model</p>"),
              model.index["messages"][mine].get("content"))

    # A DM conversation, as narrow_to_user opens it.
    model.set_narrow(pm_with=BOB[0])
    check("DM narrow fetch", model.get_messages(num_before=30, num_after=10, anchor=None) == "")
    bob_id = model.user_dict[BOB[0]]["user_id"]
    check("send a DM", model.send_private_message([bob_id], "A DM from the terminal") is True, controller.footer[-1:])
    dm = api(BOB, "POST", "messages", type="private", to=[model.user_id], content="A DM back")
    check("live: a DM from the other user reaches the Model",
          wait_for(lambda: dm.get("id") in model.index["private_msg_ids"]), dm)
    api(BOB, "POST", "typing", op="start", to=[model.user_id])
    check("live: typing notification in the open DM", wait_for(lambda: controller.typing_shown > 0))

    # A setting changed elsewhere: the legacy update_display_settings event.
    flipped = not model.user_settings()["twenty_four_hour_time"]
    api(TERRY, "PATCH", "settings", twenty_four_hour_time=flipped)
    check("live: update_display_settings changes the time format",
          wait_for(lambda: model.user_settings()["twenty_four_hour_time"] == flipped))

    # Muting a channel: the Model toggles is_muted and waits for the in_home_view event.
    stream_id = model.stream_id_from_name(STREAM)
    model.toggle_stream_muted_status(stream_id)
    check("live: muting a channel (in_home_view event)", wait_for(lambda: model.is_muted_stream(stream_id)))
    model.toggle_stream_muted_status(stream_id)
    check("live: unmuting it", wait_for(lambda: not model.is_muted_stream(stream_id)))

    check("no exception in the Model's event thread", not controller.thread_errors, "\n".join(controller.thread_errors))
    errors = [f for f in controller.footer if f[0] == "error"]
    check("no error reported in the footer", not errors, errors)
    print(f"      requests made: {len(client.requests)}; kinds: {sorted(set(client.requests))}")
    client.deregister(model.queue_id, 1.0)
    return failures


if __name__ == "__main__":
    sys.exit(main())
