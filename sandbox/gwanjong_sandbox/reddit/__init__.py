"""Reddit emulator: the OAuth API (oauth.reddit.com) and the token endpoint (www.reddit.com).

Both live under ``/reddit``, which is how asyncpraw is pointed here (platform-wire.md §3.2):
``oauth_url=SANDBOX + "/reddit/"`` (trailing slash, the API paths are joined onto it) and
``reddit_url=SANDBOX + "/reddit"`` (the token URL is that string + ``/api/v1/access_token``).

What it reproduces from the recorded payloads (payloads/reddit) and platform-wire.md §3:

* script-app OAuth (``grant_type=password``) and application-only OAuth
  (``client_credentials``); a wrong password is **HTTP 200** ``{"error": "invalid_grant"}``,
  a wrong client is 401; API calls need ``Authorization: bearer <token>``, else 401 with an
  HTML body and ``WWW-Authenticate: Bearer realm="reddit", error="invalid_token"``;
* every OAuth answer carries all three ``x-ratelimit-*`` headers (``remaining`` as a float
  string); over budget is 429 with the same headers;
* listings (``/r/a+b/hot|new|top|rising``, ``/r/x/search``, ``/search``, ``/api/info``) with
  ``after`` paging; unknown subreddits redirect to the subreddit search, as Reddit does;
* ``/comments/{id}`` as the two-element array, with "load more comments" stubs once the page
  budget is spent and "continue this thread" stubs at depth 10; ``/api/morechildren`` answers
  a flat ``things`` list (at most 100 comments, then new stubs); deleted comments keep their
  place and replies, with author ``[deleted]`` and body ``[removed]``; a comment's
  ``locked`` flag is Reddit's, and the seed's one locked comment takes no reply; three
  copies of ``empty-thread``, read by id only, are a locked thread (``THREAD_LOCKED``), an
  archived one (``TOO_OLD``) and one its moderators removed (``[removed]``, which Reddit
  still lets anyone reply to);
* writes answer HTTP 200 ``{"json": {"errors": [...], "data": ...}}``: ``TOO_LONG``,
  ``NO_TEXT``, ``SUBREDDIT_NOEXIST``, ``DELETED_COMMENT``, ``THREAD_LOCKED`` (a reply under
  a locked comment: "Comments are locked.", field ``parent``) and the per-account ``RATELIMIT``
  ("Take a break for N minutes") all arrive that way;
* search as late as Reddit's index: a post written here is searchable only
  ``SEARCH_INDEX_S`` later (Reddit lists a new post minutes late, never one its spam filter
  holds); its author's ``/user/{name}/submitted`` lists it at once, newest first;
* both trailing-slash forms of every path, and ``.json`` suffixes; never a slash redirect;
* without ``raw_json=1`` strings come HTML-escaped (``&amp;``), Reddit's legacy form.

Sandbox choices (not Reddit's numbers): the rate-limit window is 10 s instead of 600 s, so
asyncprawcore's pacing never slows the tests, and one ``/comments`` page carries at most 200
comments, so the corpus's 500-comment thread always needs ``/api/morechildren``.

Modules: ``model`` (names, limits, stored things), ``state`` (the seed), ``wire`` (payload
shapes), ``http`` (auth, budget, errors), ``oauth``, ``listings``, ``comments``, ``writes``,
``inbox`` (the handlers by concern) and ``routes`` (the route table and dispatch).
"""

from gwanjong_sandbox.reddit.model import CLIENT_ID, CLIENT_SECRET, ME, PASSWORD, PREFIX
from gwanjong_sandbox.reddit.routes import RedditEmulator

__all__ = ["CLIENT_ID", "CLIENT_SECRET", "ME", "PASSWORD", "PREFIX", "RedditEmulator"]
