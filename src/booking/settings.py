"""The booking agent's settings: where its bookings are kept."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from relais.settings import BlankIsNone, PackageSettings, cached_settings


class BookingSettings(PackageSettings):
    """Settings of `booking`."""

    booking_db_path: Annotated[Path | None, BlankIsNone] = Field(None, description="The booking agent's store (default <data dir>/bookings.db).")

    @property
    def store_path(self) -> Path:
        return self.booking_db_path or self.data_dir / "bookings.db"


booking_settings = cached_settings(BookingSettings)
"""The process-wide booking settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
