"""The LTI 1.3 claims this tool reads from a launch's id_token."""

from __future__ import annotations

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
LTI_VERSION = "1.3.0"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
# Roles that run the course: they own its class. Anyone else in it is a learner.
TEACHING_ROLES = frozenset(
    {MEMBERSHIP + "Instructor", MEMBERSHIP + "Administrator", MEMBERSHIP + "ContentDeveloper"}
)


def teaches(roles: object) -> bool:
    """Whether the roles claim names a teaching role (short names like "Instructor",
    which LTI 1.3 deprecates, count too)."""
    if not isinstance(roles, list):
        return False
    short = {role.rpartition("#")[2] for role in TEACHING_ROLES}
    return any(isinstance(role, str) and role in TEACHING_ROLES | short for role in roles)


# LTI Advantage: the services a launch may name, and the scopes their tokens are asked for.
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DEEP_LINKING_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
MEMBERSHIPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
