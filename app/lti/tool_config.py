"""What a platform is told about this tool: its URLs, and the JSON configuration Canvas
takes as a developer key ("Paste JSON"). Shown on /admin/lti and by `python -m app lti`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.lti import claims

TITLE = "Tensorcamp"
DESCRIPTION = "Learn PyTorch by doing: lessons, questions and graded exercises."


@dataclass(frozen=True)
class ToolUrls:
    login: str
    launch: str
    deep_linking: str
    target_link: str
    jwks: str


def tool_urls(base_url: str) -> ToolUrls:
    return ToolUrls(
        login=f"{base_url}/lti/login",
        launch=f"{base_url}/lti/launch",
        # A deep-linking request is a launch like another: the same URL takes both.
        deep_linking=f"{base_url}/lti/launch",
        target_link=f"{base_url}/lessons/<lesson slug>",
        jwks=f"{base_url}/lti/jwks.json",
    )


def canvas_json(base_url: str) -> dict[str, Any]:
    """A Canvas LTI 1.3 developer key's JSON: deep linking from the assignment and link
    pickers, scores and the roster allowed."""
    urls = tool_urls(base_url)
    picker = {"message_type": claims.DEEP_LINKING_REQUEST, "target_link_uri": urls.launch}
    return {
        "title": TITLE,
        "description": DESCRIPTION,
        "oidc_initiation_url": urls.login,
        "target_link_uri": urls.launch,
        "public_jwk_url": urls.jwks,
        "scopes": [
            "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
            "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
            claims.SCORE_SCOPE,
            claims.MEMBERSHIPS_SCOPE,
        ],
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {
                    "placements": [
                        {"placement": "assignment_selection", **picker},
                        {"placement": "link_selection", **picker},
                    ]
                },
            }
        ],
        "custom_fields": {},
    }
