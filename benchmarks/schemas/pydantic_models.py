"""Tool-input models of the kind LLM hosts declare with pydantic v2.

`benchmarks/collect_schemas.py` dumps `Model.model_json_schema()` of each model in
TOOL_MODELS into pydantic-models.json beside this file. Between them they use Optional
fields, nested models, Enum and Literal choices, lists of models, dicts, defaults, Field
descriptions, constraints, a discriminated union, a tuple, a set, Decimal and a recursive
model, since these are what make pydantic emit $defs, $ref, anyOf, oneOf and prefixItems.
"""
import datetime
import enum
from decimal import Decimal
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field


class SafeSearch(str, enum.Enum):
    off = "off"
    moderate = "moderate"
    strict = "strict"


class WebSearch(BaseModel):
    """Search the web and return the top results."""
    query: str = Field(min_length=1, max_length=400, description="The search terms.")
    max_results: int = Field(10, ge=1, le=50)
    recency: Optional[Literal["day", "week", "month", "year"]] = None
    domains: Optional[list[str]] = Field(None, description="Only search these sites.")
    safe_search: SafeSearch = SafeSearch.moderate


class Attachment(BaseModel):
    filename: str
    mime_type: str = "application/octet-stream"
    content_base64: str


class SendEmail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: list[str] = Field(min_length=1, description="Recipient addresses.")
    cc: Optional[list[str]] = None
    subject: str = Field(max_length=200)
    body: str
    attachments: list[Attachment] = []
    priority: Literal["low", "normal", "high"] = "normal"


class Frequency(enum.Enum):
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"


class Recurrence(BaseModel):
    frequency: Frequency
    interval: int = Field(1, ge=1)
    until: Optional[datetime.date] = None


class Attendee(BaseModel):
    email: str
    optional: bool = False


class CreateCalendarEvent(BaseModel):
    title: str
    start: datetime.datetime
    end: datetime.datetime
    attendees: list[Attendee] = []
    location: Optional[str] = None
    recurrence: Optional[Recurrence] = None
    reminders_minutes: list[int] = Field(default=[10], description="Minutes before start.")


class RunSqlQuery(BaseModel):
    sql: str = Field(description="One SQL statement.")
    params: dict[str, Union[str, int, float, bool, None]] = {}
    timeout_seconds: float = Field(30, gt=0, le=300)
    read_only: bool = True


class HttpRequest(BaseModel):
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = {}
    json_body: Optional[dict[str, Any]] = None
    timeout: Optional[float] = Field(None, ge=0)


class CabinClass(str, enum.Enum):
    economy = "economy"
    premium = "premium_economy"
    business = "business"
    first = "first"


class Passenger(BaseModel):
    name: str
    age: int = Field(ge=0, le=120)
    kind: Literal["adult", "child", "infant"] = "adult"


class BookFlight(BaseModel):
    origin: str = Field(pattern=r"^[A-Z]{3}$", description="IATA airport code.")
    destination: str = Field(pattern=r"^[A-Z]{3}$")
    departure_date: datetime.date
    return_date: Optional[datetime.date] = None
    passengers: list[Passenger] = Field(min_length=1, max_length=9)
    cabin: CabinClass = CabinClass.economy
    max_price: Optional[Decimal] = Field(None, description="In the traveller's currency.")


class EmailChannel(BaseModel):
    channel: Literal["email"]
    address: str


class SmsChannel(BaseModel):
    channel: Literal["sms"]
    phone: str = Field(pattern=r"^\+[0-9]{7,15}$")


class SetNotificationPreference(BaseModel):
    topic: str
    enabled: bool
    via: Union[EmailChannel, SmsChannel] = Field(discriminator="channel")
    quiet_hours: Optional[tuple[int, int]] = Field(None, description="Start and end hour.")


class Condition(BaseModel):
    field: str
    op: Literal["eq", "ne", "lt", "gt", "contains", "in"]
    value: Union[str, float, bool, list[str]]


class FilterGroup(BaseModel):
    """A boolean filter; groups nest (a recursive schema)."""
    logic: Literal["and", "or"] = "and"
    conditions: list[Union[Condition, "FilterGroup"]]


class SearchRecords(BaseModel):
    collection: str
    filter: Optional[FilterGroup] = None
    sort_by: Optional[str] = None
    limit: int = Field(20, ge=1, le=1000)
    fields: set[str] = Field(default_factory=set, description="Fields to return; all if empty.")


class TextEdit(BaseModel):
    old_text: str = Field(min_length=1)
    new_text: str


class EditFile(BaseModel):
    path: str
    edits: list[TextEdit] = Field(min_length=1)
    dry_run: bool = False


class RunCode(BaseModel):
    model_config = ConfigDict(extra="allow")  # hosts pass sandbox options through
    language: Literal["python", "javascript", "bash"]
    code: str
    files: dict[str, str] = Field(default={}, description="Extra files by path.")
    stdin: Optional[str] = None
    timeout_seconds: int = Field(30, ge=1, le=600)


TOOL_MODELS = [WebSearch, SendEmail, CreateCalendarEvent, RunSqlQuery, HttpRequest, BookFlight,
               SetNotificationPreference, SearchRecords, EditFile, RunCode]
