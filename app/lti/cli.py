"""`python -m app lti ...`: register LTI platforms, list and remove them, rotate the key."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import Database
from app.lti import keys, service
from app.lti.tool_config import tool_urls
from app.models import utcnow


def _run(settings: Settings, work: Callable[[AsyncSession], Awaitable[int]]) -> int:
    from app import migrations

    if settings.effective_database_url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    migrations.upgrade(settings.effective_database_url)

    async def run() -> int:
        database = Database.from_url(settings.effective_database_url)
        try:
            async with database.writer() as session, session.begin():
                return await work(session)
        finally:
            await database.dispose()

    return asyncio.run(run())


def _urls(settings: Settings) -> str:
    urls = tool_urls(settings.effective_public_base_url)
    return (
        f"  login initiation URL:  {urls.login}\n"
        f"  redirect (launch) URL: {urls.launch}\n"
        f"  deep linking URL:      {urls.deep_linking}\n"
        f"  target link URI:       {urls.target_link}\n"
        f"  public keyset (JWKS):  {urls.jwks}\n"
        f"  (the same, and Canvas's JSON, on the page /admin/lti)"
    )


def add_platform(settings: Settings, args: argparse.Namespace) -> int:
    async def work(session: AsyncSession) -> int:
        try:
            await service.add_platform(
                session=session,
                issuer=args.issuer,
                client_id=args.client_id,
                deployment_ids=args.deployment_id,
                auth_url=args.auth_url,
                token_url=args.token_url,
                jwks_url=args.jwks_url,
            )
        except service.PlatformExists as exc:
            print(f"already registered: {exc}; remove it first to change it", file=sys.stderr)
            return 1
        await keys.ensure_key(session=session)
        print(f"registered {args.issuer} (client id {args.client_id})")
        print("Give the platform these URLs:\n" + _urls(settings))
        return 0

    return _run(settings, work)


def list_platforms(settings: Settings, _args: argparse.Namespace) -> int:
    async def work(session: AsyncSession) -> int:
        rows = await service.list_platforms(session=session)
        if not rows:
            print("no LTI platform is registered")
        for row in rows:
            platform = row.platform
            print(
                f"{platform.issuer}  client id {platform.client_id}  "
                f"deployments {', '.join(row.deployment_ids) or '-'}\n"
                f"  auth {platform.auth_url}\n  token {platform.token_url}\n"
                f"  jwks {platform.jwks_url}"
            )
        print("This tool's URLs:\n" + _urls(settings))
        return 0

    return _run(settings, work)


def remove_platform(settings: Settings, args: argparse.Namespace) -> int:
    async def work(session: AsyncSession) -> int:
        removed = await service.remove_platform(
            session=session, issuer=args.issuer, client_id=args.client_id
        )
        if not removed:
            print(f"no platform {args.issuer} with client id {args.client_id}", file=sys.stderr)
            return 1
        print(f"removed {args.issuer} (client id {args.client_id})")
        return 0

    return _run(settings, work)


def rotate_key(settings: Settings, _args: argparse.Namespace) -> int:
    async def work(session: AsyncSession) -> int:
        key = await keys.rotate_key(session=session, now=utcnow())
        print(
            f"new tool key {key.kid}; the previous one stays published for "
            f"{keys.RETIRED_KEY_PUBLISHED.days} days"
        )
        return 0

    return _run(settings, work)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `lti` group of `python -m app`."""
    lti = commands.add_parser("lti", help="LTI 1.3: platforms (LMSs) this tool runs inside")
    group = lti.add_subparsers(dest="lti_command", required=True)
    add = group.add_parser("add-platform", help="register a platform (docs/lti.md)")
    add.add_argument("--issuer", required=True, help="the platform's issuer (iss)")
    add.add_argument("--client-id", required=True, help="the client id the platform gave")
    add.add_argument(
        "--deployment-id", required=True, action="append", help="a deployment id (repeatable)"
    )
    add.add_argument("--auth-url", required=True, help="the platform's OIDC authorization URL")
    add.add_argument("--token-url", required=True, help="the platform's OAuth2 token URL")
    add.add_argument("--jwks-url", required=True, help="the platform's public keyset URL")
    add.set_defaults(handler=add_platform)
    listed = group.add_parser("list", help="the registered platforms and this tool's URLs")
    listed.set_defaults(handler=list_platforms)
    remove = group.add_parser("remove", help="remove a platform's registration")
    remove.add_argument("--issuer", required=True)
    remove.add_argument("--client-id", required=True)
    remove.set_defaults(handler=remove_platform)
    rotate = group.add_parser("rotate-key", help="a new tool key; the old stays published")
    rotate.set_defaults(handler=rotate_key)
