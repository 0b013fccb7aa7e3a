"""Telling the person when something waits for them (`[notify]`, docs/use/notifications.md):
events (`events`), batched into one message per channel per period (`notifier`), worded
with names and counts only (`events`), sent through Apprise in the background
(`deliver`), each event once across restarts and replicas (the record's `notices`)."""
