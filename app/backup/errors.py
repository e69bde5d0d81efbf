"""The one error backups and restores raise: a refusal, worded for the operator."""


class BackupError(Exception):
    pass
