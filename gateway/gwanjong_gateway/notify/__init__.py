"""Telling the person when something waits for them (`[notify]`, docs/use/notifications.md):
events, and the message a batch of them makes, worded with names and counts only
(`events`), one per channel per period (`notifier`), sent through Apprise in the background
(`deliver`), each event once across restarts and replicas (the record's `notices`)."""
