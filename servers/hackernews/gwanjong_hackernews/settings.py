"""Hacker News settings: HACKERNEWS_USERNAME (optional), the two API URLs and pacing."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from gwanjong_shared.kit.settings import PlatformSettings


class Settings(PlatformSettings):
    model_config = SettingsConfigDict(
        env_prefix="HACKERNEWS_", env_file=".env", extra="ignore", frozen=True
    )

    username: str | None = Field(
        default=None,
        description="your HN username (case-sensitive): only the inbox needs it",
    )
    api_url: str = Field(
        default="https://hacker-news.firebaseio.com", description="the official Firebase API"
    )
    search_url: str = Field(
        default="https://hn.algolia.com", description="the Algolia HN Search API"
    )
    search_order: Literal["relevance", "date"] = Field(
        default="relevance", description="search by relevance, or recent first"
    )
    searches_per_minute: float = Field(
        default=160, gt=0, description="Algolia allows 10,000 requests an hour per IP"
    )
    concurrency: int = Field(
        default=8, ge=1, le=64, description="item reads in flight at once (comment trees)"
    )
