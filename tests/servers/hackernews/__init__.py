"""The Hacker News server: Firebase and Algolia shapes, the flattened tree, the inbox, writes never."""
