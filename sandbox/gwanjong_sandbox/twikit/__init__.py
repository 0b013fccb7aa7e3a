"""X's logged-in web API as twikit 2.3.3 calls it: GraphQL on x.com, login on api.x.com.

twikit keeps the real hosts (x.com, api.x.com, twitter.com, abs.twimg.com) in the Host header,
so this emulator is routed by Host. It renders the same world as the v2 emulator
(``gwanjong_sandbox.twitter``), so ids and writes are shared; its fault name is ``twikit`` and
it also obeys faults aimed at ``twitter`` (``fault_scope``), because for a client that reads
through twikit first, "X misbehaves" hits this API first.

Shapes follow twikit's expectations (platform-wire.md §4b): the legacy tweet/user layout
(every user legacy key present), ``TweetWithVisibilityResults``/``TweetTombstone`` wrappers,
search and thread cursors always present, the trends module always present, errors inside
HTTP 200 bodies (``{"errors": [{"code": 144, ...}]}``), ``user_state.json`` answering after a
429, and a bootstrap page (``x.com`` + ``ondemand.s`` JS) that twikit's ClientTransaction can
parse. The login flow is emulated end to end; it never answers with a step that would make
twikit prompt on the console (``LoginAcid``, ``LoginTwoFactorAuthChallenge``).

Modules: ``model`` (credentials, hosts, limits, bootstrap page), ``core`` (state, session and
limit checks), ``login``, ``wire`` (GraphQL shapes), ``reads``, ``writes`` and ``routes`` (the
route table).
"""

from gwanjong_sandbox.twikit.model import AUTH_TOKEN, HOSTS, PASSWORD, READER_EMAIL, WEB_BEARER
from gwanjong_sandbox.twikit.routes import TwikitEmulator

__all__ = ["AUTH_TOKEN", "HOSTS", "PASSWORD", "READER_EMAIL", "WEB_BEARER", "TwikitEmulator"]
