"""Every table, importable from one place (Alembic autogenerate reads `Base.metadata`)."""

from app.models.attempt import QuestionAttempt
from app.models.base import Base, utcnow
from app.models.classroom import ClassAssignment, ClassMember, Classroom, ClassTeacher
from app.models.comment import Comment
from app.models.content import Exercise, HintOpening, Lesson, Question, Track
from app.models.extension import DueExtension
from app.models.item_progress import ItemProgress
from app.models.limit import RateCount
from app.models.login import LoginSession, LoginSuccess
from app.models.lti import (
    LtiAccount,
    LtiContext,
    LtiDeployment,
    LtiLogin,
    LtiPlatform,
    LtiToolKey,
)
from app.models.output_hint import OutputHint
from app.models.regrade import Regrade, RegradeResult, RegradeStatus
from app.models.setup import SetupToken
from app.models.states import (
    RevealReason,
    Role,
    RunVerdict,
    SubmissionMode,
    SubmissionStatus,
    Verdict,
)
from app.models.submission import SolutionReveal, Submission, SubmissionRun
from app.models.user import ApiToken, LoginFailure, User

__all__ = [
    "ApiToken",
    "Base",
    "ClassAssignment",
    "ClassMember",
    "ClassTeacher",
    "Classroom",
    "Comment",
    "DueExtension",
    "Exercise",
    "HintOpening",
    "ItemProgress",
    "Lesson",
    "LoginFailure",
    "LoginSession",
    "LoginSuccess",
    "LtiAccount",
    "LtiContext",
    "LtiDeployment",
    "LtiLogin",
    "LtiPlatform",
    "LtiToolKey",
    "OutputHint",
    "Question",
    "QuestionAttempt",
    "RateCount",
    "Regrade",
    "RegradeResult",
    "RegradeStatus",
    "RevealReason",
    "Role",
    "RunVerdict",
    "SetupToken",
    "SolutionReveal",
    "Submission",
    "SubmissionMode",
    "SubmissionRun",
    "SubmissionStatus",
    "Track",
    "User",
    "Verdict",
    "utcnow",
]
