"""The booking agent's settings: its store defaults to the kit's data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from booking.agent import default_store
from booking.settings import BookingSettings, booking_settings
from relais.settings import clear_settings_caches


def test_the_store_is_in_the_data_folder_unless_set(isolated_settings: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert booking_settings().store_path == isolated_settings.resolve() / "bookings.db"
    monkeypatch.setenv("BOOKING_DB_PATH", "")  # blank: unset
    clear_settings_caches()
    assert booking_settings().booking_db_path is None
    own = BookingSettings(booking_db_path=tmp_path / "mine.db")
    assert own.store_path == tmp_path / "mine.db"
    default_store(own)
    assert (tmp_path / "mine.db").is_file()
