"""Query parameters the API cannot use are a 400 naming the parameter, never silently ignored
(an empty `status=` used to list every trigger; an empty `page=` gave page 1)."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("status=", "status"),
        ("status=nope", "status"),
        ("status=ENQUEUED", "status"),
        ("workflow=", "workflow"),
        ("page=", "page"),
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("page=1.5", "page"),
        ("page=last", "page"),
    ],
)
def test_a_trigger_filter_or_page_the_api_cannot_use_is_400_naming_it(api_client, query, parameter):
    response = api_client.get(f"/api/triggers/?{query}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert parameter in body["errors"] and parameter in body["detail"]


@pytest.mark.parametrize("query", ["trigger=", "node_id="])
def test_an_empty_log_filter_is_a_400_not_every_log(api_client, query):
    response = api_client.get(f"/api/logs/?{query}")
    assert response.status_code == 400
    assert response.json()["errors"] == {query[:-1]: ["must not be empty"]}


@pytest.mark.parametrize("path", ["/api/workflows/", "/api/logs/"])
@pytest.mark.parametrize("page", ["", "0", "x"])
def test_every_list_refuses_a_page_that_is_not_a_page_number(api_client, path, page):
    response = api_client.get(f"{path}?page={page}")
    assert response.status_code == 400 and "page" in response.json()["errors"]


def test_a_valid_filter_and_page_still_answer(api_client):
    assert api_client.get("/api/triggers/?status=enqueued&page=1").status_code == 200
    # A page past the end is a page that does not exist: 404, as before.
    assert api_client.get("/api/triggers/?page=2").status_code == 404


def test_the_schema_gives_the_page_numbers_the_api_takes(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    for path in ("/api/triggers/", "/api/workflows/", "/api/logs/"):
        (page,) = [p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == "page"]
        assert page["schema"] == {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}
    assert api_client.get(f"/api/triggers/?page={10**18 - 1}").status_code == 404
    assert api_client.get(f"/api/triggers/?page={10**18}").status_code == 400
