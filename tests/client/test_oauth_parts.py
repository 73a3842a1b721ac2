"""The sans-I/O parts of the client's OAuth, each against its RFC: challenges, where metadata is
looked for, which scopes are asked, the authorization response's checks, DPoP proofs, the token
files' permissions."""

from __future__ import annotations

import base64
import hashlib
import stat
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest

from mcptrio.client.oauth import AuthorizationError, FileTokenStore
from mcptrio.client.oauth.authorization import authorization_request, code_of
from mcptrio.client.oauth.challenge import challenge_of, parse_challenges
from mcptrio.client.oauth.dpop import DPoPKey
from mcptrio.client.oauth.flow import choose_scopes
from mcptrio.client.oauth.metadata import (
    ResourceMetadata,
    ServerMetadata,
    covers,
    resource_metadata_urls,
    server_metadata_urls,
)

SERVER = ServerMetadata.from_document(
    {
        "issuer": "https://as.example.com",
        "authorization_endpoint": "https://as.example.com/authorize",
        "token_endpoint": "https://as.example.com/token",
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
        "scopes_supported": ["a", "offline_access"],
    }
)


def test_challenges_with_quoted_escaped_and_several_schemes():
    [bearer] = parse_challenges(
        'Bearer error="insufficient_scope", scope="files:read files:write", '
        'resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", '
        'error_description="say \\"please\\""'
    )
    assert bearer.error == "insufficient_scope" and bearer.scopes == ["files:read", "files:write"]
    assert bearer.params["error_description"] == 'say "please"'
    assert challenge_of(['Basic realm="x"', 'DPoP algs="ES256", error="use_dpop_nonce"']).error == "use_dpop_nonce"
    assert challenge_of(["Bearer"]).params == {}


def test_where_metadata_is_looked_for_in_the_spec_order():
    assert resource_metadata_urls("https://example.com/public/mcp") == [
        "https://example.com/.well-known/oauth-protected-resource/public/mcp",
        "https://example.com/.well-known/oauth-protected-resource",
    ]
    assert server_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert server_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]
    assert covers("HTTPS://Example.com:443/mcp/", "https://example.com/mcp")
    assert covers("https://example.com", "https://example.com/mcp")
    assert not covers("https://evil.example.com/mcp", "https://example.com/mcp")
    assert not covers("https://example.com/mc", "https://example.com/mcp")


def test_scopes_the_challenge_else_the_resource_step_up_adds_and_offline_access():
    resource = ResourceMetadata("https://example.com/mcp", ["https://as.example.com"], ["r1", "r2"])
    challenge = parse_challenges('Bearer scope="w"')[0]
    assert choose_scopes(challenge, resource, SERVER, previous=[], extra=None, offline_access=False) == ["w"]
    assert choose_scopes(None, resource, SERVER, previous=[], extra="x", offline_access=True) == [
        "r1",
        "r2",
        "x",
        "offline_access",
    ]
    assert choose_scopes(challenge, resource, SERVER, previous=["r1"], extra=None, offline_access=False) == ["r1", "w"]
    bare = ResourceMetadata("https://example.com/mcp", ["https://as.example.com"])
    assert (
        choose_scopes(None, bare, ServerMetadata.defaults("https://x"), previous=[], extra=None, offline_access=True)
        == []
    )


def test_the_authorization_request_has_pkce_state_and_resource():
    request = authorization_request(
        SERVER,
        client_id="c",
        redirect_uri="http://127.0.0.1:9/callback",
        resource="https://example.com/mcp",
        scope="a b",
    )
    query = {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}
    assert query["code_challenge_method"] == "S256" and query["resource"] == "https://example.com/mcp"
    digest = hashlib.sha256(request.verifier.encode()).digest()
    assert query["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert query["state"] == request.state and query["scope"] == "a b"
    without_pkce = ServerMetadata.from_document(
        {"issuer": "https://as", "authorization_endpoint": "https://as/a", "token_endpoint": "https://as/t"}
    )
    with pytest.raises(AuthorizationError, match="PKCE"):
        authorization_request(without_pkce, client_id="c", redirect_uri="x", resource="r", scope=None)


@pytest.mark.parametrize(
    "iss, advertised, accepted",
    [
        ("https://as.example.com", True, True),
        (None, True, False),
        ("https://as.example.com/", True, False),
        ("https://evil.example.com", False, False),
        (None, False, True),
    ],
)
def test_the_response_iss_is_checked_as_rfc_9207_says(iss, advertised, accepted):
    server = (
        SERVER
        if advertised
        else ServerMetadata.from_document(
            {
                "issuer": "https://as.example.com",
                "authorization_endpoint": "https://as.example.com/authorize",
                "token_endpoint": "https://as.example.com/token",
                "code_challenge_methods_supported": ["S256"],
            }
        )
    )
    request = authorization_request(
        server, client_id="c", redirect_uri="http://127.0.0.1:9/callback", resource="r", scope=None
    )
    callback = f"http://127.0.0.1:9/callback?code=xyz&state={request.state}" + (f"&iss={iss}" if iss else "")
    if accepted:
        assert code_of(request, callback) == "xyz"
    else:
        with pytest.raises(AuthorizationError, match="RFC 9207"):
            code_of(request, callback)
    with pytest.raises(AuthorizationError, match="state"):
        code_of(request, "http://127.0.0.1:9/callback?code=xyz&state=other&iss=https://as.example.com")


def test_a_dpop_proof_is_signed_by_its_key_and_names_the_request():
    key = DPoPKey()
    key.remember_nonce("https://mcp.example.com/mcp", "n-1")
    proof = key.proof("post", "https://mcp.example.com/mcp?x=1", access_token="token")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and "d" not in header["jwk"]
    claims = jwt.decode(proof, jwt.PyJWK(header["jwk"]).key, algorithms=["ES256"])
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example.com/mcp" and claims["nonce"] == "n-1"
    assert claims["ath"] == base64.urlsafe_b64encode(hashlib.sha256(b"token").digest()).rstrip(b"=").decode()
    assert key.proof("GET", "https://x/") != key.proof("GET", "https://x/")  # (a fresh jti each time)


async def test_token_files_are_the_users_alone(tmp_path):
    store = FileTokenStore(tmp_path / "oauth")
    await store.set("tokens https://example.com/mcp", '{"secret": 1}')
    [path] = (tmp_path / "oauth").iterdir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert await store.get("tokens https://example.com/mcp") == '{"secret": 1}'
    assert await store.entries() == {"tokens https://example.com/mcp": '{"secret": 1}'}
    await store.delete("tokens https://example.com/mcp")
    assert await store.get("tokens https://example.com/mcp") is None


async def test_pre_registered_credentials_go_to_their_own_authorization_server_only():
    from mcptrio.client.oauth import MemoryTokenStore, OAuth

    auth = OAuth(store=MemoryTokenStore(), client_id="c", client_secret="s", client_issuer="https://as.example.com")
    registration = await auth.registration(None, SERVER, "http://127.0.0.1:9/callback")  # (no request needed)
    assert registration.client.client_id == "c" and registration.client.method == "client_secret_basic"
    moved = ServerMetadata.from_document({"issuer": "https://other.example.com", "token_endpoint": "https://o/t"})
    with pytest.raises(AuthorizationError, match="registered with https://as.example.com"):
        await auth.registration(None, moved, "http://127.0.0.1:9/callback")
