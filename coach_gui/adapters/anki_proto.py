"""Just enough of protobuf's wire format to read an Anki package's media list and note
type configs (ADR 0038): varints and length-delimited fields; the rest is skipped. The
`protobuf` runtime and Anki's generated classes are not needed for a few fields."""

from __future__ import annotations

_MAX_DEPTH_BYTES = 64 * 2**20


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("a varint runs past the end")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def fields_of(data: bytes) -> dict[int, list[int | bytes]]:
    """Each field number's values, in order: ints for varints (and fixed ints), bytes for
    length-delimited fields. ValueError for bytes that are not a message."""
    if len(data) > _MAX_DEPTH_BYTES:
        raise ValueError("too large")
    found: dict[int, list[int | bytes]] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError("a field runs past the end")
            value, at = data[at : at + size], at + size
        elif wire == 1:
            value, at = int.from_bytes(data[at : at + 8], "little"), at + 8
        elif wire == 5:
            value, at = int.from_bytes(data[at : at + 4], "little"), at + 4
        else:
            raise ValueError(f"wire type {wire} is not read")
        if at > len(data) or number == 0:
            raise ValueError("a field runs past the end")
        found.setdefault(number, []).append(value)
    return found


def text_field(fields: dict[int, list[int | bytes]], number: int) -> str:
    values = fields.get(number)
    if not values or not isinstance(values[-1], bytes):
        return ""
    return values[-1].decode("utf-8")


def varint_field(fields: dict[int, list[int | bytes]], number: int) -> int | None:
    values = fields.get(number)
    if not values or not isinstance(values[-1], int):
        return None
    return values[-1]
