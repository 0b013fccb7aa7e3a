"""The output schemas we declare admit a failed call's error shape beside the result."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from gwanjong_shared.contract.errors import ErrorBody, ErrorKind, ErrorResult
from gwanjong_shared.contract.models import Post
from gwanjong_shared.contract.schemas import admit_errors, output_schema

ERROR = ErrorResult(error=ErrorBody.of(ErrorKind.NOT_FOUND, "No post 9.")).model_dump(mode="json")
POST = {"id": "1", "platform": "devto"}


def test_a_result_schema_admits_the_result_and_the_error_and_nothing_else() -> None:
    check = Draft202012Validator(output_schema(Post))
    assert check.is_valid(ERROR)
    assert check.is_valid(Post(id="1", platform="devto").model_dump(mode="json"))
    assert not check.is_valid({"error": {"kind": "no_such_kind", "message": "x"}})
    assert not check.is_valid({"platform": "devto"})  # a Post needs its id
    assert not check.is_valid([])


def test_another_servers_schema_is_made_to_admit_the_error() -> None:
    strict = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "platform": {"type": "string"}},
        "required": ["id", "platform"],
        "additionalProperties": False,
    }
    assert not Draft202012Validator(strict).is_valid(ERROR)
    widened = Draft202012Validator(admit_errors(strict))
    assert widened.is_valid(ERROR) and widened.is_valid(POST)
    assert not widened.is_valid({"id": "1"})


def test_a_schema_that_admits_the_error_is_kept_as_it_is() -> None:
    ours = output_schema(Post)
    assert admit_errors(ours) == ours
