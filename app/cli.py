"""`python -m app ...`: serve, migrate, check content, create users, back up and restore."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from app.config import Settings, get_settings

if TYPE_CHECKING:
    from app.content import ContentError


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app

    if args.port:  # the port served is the one absolute URLs name (without PUBLIC_BASE_URL)
        settings = settings.model_copy(update={"port": args.port})
    options: dict[str, Any] = {
        "host": args.host,
        "port": settings.port,
        "proxy_headers": True,
        "log_level": "info",
        # A process told to stop finishes the requests it has (long polls answer at once:
        # app/grading/waiting.py) and then goes; this bounds a request that hangs.
        "timeout_graceful_shutdown": GRACEFUL_S,
    }
    if args.workers <= 1:
        uvicorn.run(create_app(settings), **options)
        return 0
    # Several processes on one socket, each its own app (made by the factory from the same
    # environment). The socket stays open while they come and go: SIGHUP replaces them one
    # by one, each new one serving before the old one stops (docs/self-hosting.md).
    os.environ["PORT"] = str(settings.port)
    _prepare(settings)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        workers=args.workers,
        # A new process migrates, loads the lessons and starts grading before it serves:
        # uvicorn's 5 s would give up on it on a busy host and keep the old ones.
        timeout_worker_healthcheck=STARTUP_S,
        **options,
    )
    return 0


GRACEFUL_S = 10
STARTUP_S = 60


def _prepare(settings: Settings) -> None:
    """Migrate and load the content once, before the processes start (each does it again
    as it starts, then with nothing left to do, so that none races another on an empty
    database)."""
    from app.db import Database
    from app.main import load_content

    _migrate(settings, argparse.Namespace())

    async def load() -> None:
        database = Database.from_url(settings.effective_database_url)
        try:
            await load_content(settings, database)
        finally:
            await database.dispose()

    asyncio.run(load())


def database_label(settings: Settings) -> str:
    """The database this command works on, as a URL without its password (and without the
    async driver the app picks), to print: a server started with another DATA_DIR or
    DATABASE_URL uses another database."""
    from app.backup import safe_url

    return safe_url(settings.effective_database_url)


def _warn_if_default(settings: Settings) -> None:
    """A warning when the database is the default one, found from no setting."""
    if not {"data_dir", "database_url"} & settings.model_fields_set:
        print(
            "note: neither DATA_DIR nor DATABASE_URL is set, so this is the default database "
            "in ./data. If the server runs with another DATA_DIR or DATABASE_URL, run this "
            "command again with the same setting, or the account is not where the server looks.",
            file=sys.stderr,
        )


def _migrate(settings: Settings, _args: argparse.Namespace) -> int:
    from app import migrations

    if settings.effective_database_url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    migrations.upgrade(settings.effective_database_url)
    print("database is at the newest migration")
    return 0


def _problems(root: Path, exc: ContentError) -> int:
    """Content that does not load, as the content commands report it: every problem, on
    stderr; the exit status."""
    print(f"{len(exc.problems)} problem(s) in {root}:", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)
    return 1


def _content_check(settings: Settings, args: argparse.Namespace) -> int:
    from app.content import ContentError, load_catalog

    root = Path(args.path) if args.path else settings.content_dir
    if args.write_variants and not args.run:
        print("--write-variants needs --run: the outputs come from the sandbox", file=sys.stderr)
        return 2
    try:
        # Stale or missing variant outputs are what --write-variants is there to make.
        catalog = load_catalog(
            root, require_variant_outputs=not args.write_variants, require_translations=True
        )
    except ContentError as exc:
        return _problems(root, exc)
    lessons = catalog.lessons
    questions = sum(len(lesson.questions) for lesson in lessons)
    exercises = sum(len(lesson.exercises) for lesson in lessons)
    print(
        f"content OK: {len(catalog.tracks)} tracks, {len(lessons)} lessons, "
        f"{questions} questions, {exercises} exercises"
    )
    if args.run:
        from app.content.solutions import check_solutions

        try:
            return check_solutions(catalog, settings, root=root, write_variants=args.write_variants)
        except ContentError as exc:  # the catalog as read again with the variants written
            return _problems(root, exc)
    return 0


def _content_translations(settings: Settings, args: argparse.Namespace) -> int:
    from app.content import ContentError
    from app.content.loader import translation_blocks
    from app.content.translations import stamp

    root = Path(args.path) if args.path else settings.content_dir
    try:
        blocks = translation_blocks(root)
    except ContentError as exc:
        return _problems(root, exc)
    if not args.stamp:
        for block in blocks:
            state = (
                "missing"
                if block.given is None
                else "current"
                if block.translated_from == block.current
                else "unstamped"
                if block.translated_from is None
                else "stale"
            )
            where = f"{block.path.relative_to(root.parent)}: {block.where}".rstrip(": ")
            print(f"{state:9} {block.language} {where}")
        return 0
    changed = stamp(blocks)
    for path in changed:
        print(f"stamped {path.relative_to(root.parent)}")
    print(f"{len(changed)} file(s) stamped; `content check` says what is still missing")
    return 0


def _create_user(settings: Settings, args: argparse.Namespace) -> int:
    from app.auth import service
    from app.auth.schemas import Credentials
    from app.db import Database

    password = os.environ.get("APP_USER_PASSWORD")
    if password is None:
        password = getpass.getpass(f"Password for {args.username}: ")
        if password != getpass.getpass("Once more: "):
            print("The passwords differ; nothing was created.", file=sys.stderr)
            return 1
    try:
        credentials = Credentials(username=args.username, password=password)
    except ValidationError as exc:
        for error in exc.errors():
            print(f"{error['loc'][0]}: {error['msg']}", file=sys.stderr)
        return 1

    async def create() -> int:
        database = Database.from_url(settings.effective_database_url)
        try:
            async with database.writer() as session, session.begin():
                existing = await service.get_user_by_username(
                    session=session, username=credentials.username
                )
                if existing is not None:
                    if not args.update:
                        print(
                            f"{credentials.username} exists in {database_label(settings)}; "
                            "add --update to change it.",
                            file=sys.stderr,
                        )
                        return 1
                    # Each ends the user's sessions and revokes their API tokens.
                    await service.set_role(session=session, user=existing, role=args.role)
                    await service.set_password(
                        session=session, user=existing, password=credentials.password
                    )
                    print(
                        f"updated {args.role} {credentials.username} in {database_label(settings)}"
                    )
                    _warn_if_default(settings)
                    return 0
                await service.create_user(
                    session=session,
                    username=credentials.username,
                    password=credentials.password,
                    role=args.role,
                )
            print(f"created {args.role} {credentials.username} in {database_label(settings)}")
            _warn_if_default(settings)
            return 0
        finally:
            await database.dispose()

    _migrate(settings, args)
    return asyncio.run(create())


def _set_active(settings: Settings, args: argparse.Namespace) -> int:
    """disable-user / enable-user: a disabled account cannot log in, and its sessions and
    API tokens end at once."""
    from app.auth import service
    from app.db import Database

    active = args.command == "enable-user"

    async def change() -> int:
        database = Database.from_url(settings.effective_database_url)
        try:
            async with database.writer() as session, session.begin():
                user = await service.get_user_by_username(session=session, username=args.username)
                if user is None:
                    print(f"no user {args.username} in {database_label(settings)}", file=sys.stderr)
                    return 1
                await service.set_active(session=session, user=user, active=active)
        finally:
            await database.dispose()
        where = database_label(settings)
        if active:
            print(f"enabled {args.username} in {where}")
        else:
            print(f"disabled {args.username} in {where}: logged out everywhere, API tokens revoked")
        return 0

    _migrate(settings, args)
    return asyncio.run(change())


def _backup(settings: Settings, args: argparse.Namespace) -> int:
    from app.backup import BackupError, backup

    try:
        written = backup(settings=settings, output=Path(args.output) if args.output else None)
    except BackupError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"backed up {written.source} (migration {written.revision}) to {written.path}")
    for note in written.notes:
        print(note)
    return 0


def _restore(settings: Settings, args: argparse.Namespace) -> int:
    from app.backup import BackupError, restore

    try:
        restored = restore(settings=settings, path=Path(args.path), force=args.force)
    except BackupError as exc:
        print(exc, file=sys.stderr)
        return 1
    migrated = ", then migrated to this version" if restored.migrated else ""
    print(f"restored {args.path} (migration {restored.revision}) into {restored.target}{migrated}")
    print("Restart the web process(es) now: they load the lessons again as they start.")
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="migrate, load content and serve HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default: $PORT or 8000")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="web processes on the one port (default 1); SIGHUP restarts them one by one",
    )
    serve.set_defaults(handler=_serve)

    migrate = commands.add_parser("migrate", help="apply database migrations")
    migrate.set_defaults(handler=_migrate)

    content = commands.add_parser("content", help="lesson content")
    content_commands = content.add_subparsers(dest="content_command", required=True)
    # The folder every content command reads.
    content_folder = argparse.ArgumentParser(add_help=False)
    content_folder.add_argument("--path", help="content folder (default: exercises/)")
    check = content_commands.add_parser(
        "check", parents=[content_folder], help="validate exercises/ and report problems"
    )
    check.add_argument(
        "--run", action="store_true", help="also grade every sample solution in the sandbox"
    )
    check.add_argument(
        "--write-variants",
        action="store_true",
        help="with --run: (re)make each exercise's variants.expected.yaml from its solution",
    )
    check.set_defaults(handler=_content_check)
    translated = content_commands.add_parser(
        "translations",
        parents=[content_folder],
        help="list each translation and whether it is current; --stamp marks them current",
    )
    translated.add_argument(
        "--stamp",
        action="store_true",
        help="write the fingerprint of the English into every translation (after updating it)",
    )
    translated.set_defaults(handler=_content_translations)

    user = commands.add_parser(
        "create-user",
        help="create a user (a teacher, or an administrator); give it the server's DATA_DIR "
        "or DATABASE_URL",
    )
    user.add_argument("--username", required=True)
    from app.models import Role

    user.add_argument("--role", type=Role, choices=list(Role), default=Role.STUDENT)
    user.add_argument("--update", action="store_true", help="reset role and password if it exists")
    user.set_defaults(handler=_create_user)

    for command, help_text in (
        ("disable-user", "disable an account: no log-in, its sessions and API tokens end"),
        ("enable-user", "enable a disabled account again"),
    ):
        switch = commands.add_parser(command, help=help_text)
        switch.add_argument("--username", required=True)
        switch.set_defaults(handler=_set_active)

    saved = commands.add_parser(
        "backup", help="write the whole database to one file, online (docs/self-hosting.md)"
    )
    saved.add_argument(
        "--output",
        help="file to write, or a folder for the default name "
        "(default: DATA_DIR/backups/tensorcamp-<UTC time>.sqlite3 or .dump)",
    )
    saved.set_defaults(handler=_backup)
    restoring = commands.add_parser(
        "restore", help="replace the database by a backup, all or nothing, then migrate it"
    )
    restoring.add_argument("path", help="a file `python -m app backup` wrote")
    restoring.add_argument(
        "--force", action="store_true", help="replace a database that already holds users"
    )
    restoring.set_defaults(handler=_restore)
    from app.lti.cli import add_commands as add_lti_commands

    add_lti_commands(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = get_settings()
    except ValidationError as exc:
        for error in exc.errors():
            print(f"configuration: {error['msg']}", file=sys.stderr)
        return 2
    result: int = args.handler(settings, args)
    return result
