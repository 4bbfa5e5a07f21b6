"""Reading the API's answers."""


def error_code(response) -> str:
    return response.json()["error"]["code"]
