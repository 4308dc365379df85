"""Fixtures of the end-to-end test: the sandbox at $PSI_SANDBOX_URL (default
http://127.0.0.1:8787, the sandbox's default port; its control token, if it
has one, in $PSI_SANDBOX_CONTROL_TOKEN), an HTTP client and a webhook
receiver (on loopback; on every interface, named $PSI_WEBHOOK_RECEIVER_HOST,
when that is set: for a sandbox in a container, which reaches this machine
by another name)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest

from sandbox import Sandbox
from webhooks import Receiver


@pytest.fixture(scope="session")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10.0) as client:
        yield client


@pytest.fixture(scope="session")
def sandbox(http: httpx.Client) -> Sandbox:
    url = os.environ.get("PSI_SANDBOX_URL", "http://127.0.0.1:8787")
    return Sandbox.discover(http, url, os.environ.get("PSI_SANDBOX_CONTROL_TOKEN") or None)


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    receiver = Receiver(os.environ.get("PSI_WEBHOOK_RECEIVER_HOST") or None)
    yield receiver
    receiver.close()
