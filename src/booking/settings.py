"""The booking agent's settings: where its bookings are kept."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from relais.settings import PackageSettings, blank_is_none, cached_settings


class BookingSettings(PackageSettings):
    """Settings of `booking`."""

    booking_db_path: Path | None = Field(None, description="The booking agent's store (default <data dir>/bookings.db).")

    @field_validator("booking_db_path", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return blank_is_none(value)

    @property
    def store_path(self) -> Path:
        return self.booking_db_path or self.data_dir / "bookings.db"


booking_settings = cached_settings(BookingSettings)
"""The process-wide booking settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
