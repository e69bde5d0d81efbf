import httpx


async def test_healthz(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_tracks(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/tracks")
    assert response.status_code == 200
    assert [t["level"] for t in response.json()] == ["beginner", "intermediate", "advanced"]
