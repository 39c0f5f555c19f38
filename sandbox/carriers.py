"""The carriers the sandbox knows: one fixed numeric id per abbreviation (Lineup's company_carrier_list
returns them, and query_portin takes either), their names, and the list endpoint."""

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from sandbox.faults import add_latency, maybe_fail

router = APIRouter(prefix="/carrier", dependencies=[Depends(add_latency), Depends(maybe_fail)])

# Fixed forever: channels store these ids.
CARRIERS: dict[str, tuple[str, str]] = {
    "ATT": ("1", "AT&T Mobility"),
    "TMB": ("2", "T-Mobile USA"),
    "VER": ("3", "Verizon Wireless"),
    "SPR": ("4", "Sprint"),
    "TMBRLY": ("5", "T-Mobile Reseller"),
    "USC": ("6", "UScellular"),
}


class CarrierListRequest(BaseModel):
    """Which carriers a vendor sells on (every vendor sells on all of them here)."""

    vendor_id: str


def carrier_name(abbreviation: str) -> str:
    """The carrier's full name, e.g. "AT&T Mobility" for ATT."""
    return CARRIERS[abbreviation][1]


@router.post("/carriers")
async def carriers(body: CarrierListRequest) -> dict[str, Any]:
    """Every carrier with its id and name."""
    return {
        "STATUSCODE": "00",
        "DESCRIPTION": "Success",
        "CARRIERS": [
            {"CARRIER_ID": carrier_id, "CARRIER": abbreviation, "CARRIER_NAME": name}
            for abbreviation, (carrier_id, name) in CARRIERS.items()
        ],
    }
