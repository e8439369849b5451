// @ts-check
/**
 * The Python side of a sandbox process (run once by child.mjs after Pyodide loads):
 *
 * - `_persona_describe(code, entry)`: the tool definition of the entry function, read from the
 *   code's syntax tree (`ast`) — the code is never run to describe it. Type hints become JSON
 *   schema (str, int, float, bool, list[...], tuple[...], set[...], dict[...], Optional, Union,
 *   X | None, Literal, Annotated, string annotations and simple module-level aliases), defaults
 *   make a parameter optional, and Google, Sphinx or NumPy docstring sections describe each one.
 * - `_persona_call(code, entry, args_json, cap)`: runs the module once per distinct code (kept
 *   for the next call of the same code in this process), calls the entry with the arguments and
 *   answers its result as text: a str as it is, anything else as JSON, cut at `cap` UTF-8 bytes.
 * - urllib's HTTP(S) handler asks the worker through the bridge instead of opening a socket.
 *
 * It holds no JavaScript reference, so it can be part of the memory snapshot new processes start from.
 *
 * Both answer a JSON string: {ok: true, ...} or {ok: false, kind, error} with a short error.
 */
export const PYTHON_HARNESS = String.raw`
import ast as _ast
import base64 as _base64
import hashlib as _hashlib
import http.client as _http_client
import inspect as _inspect
import io as _io
import json as _json
import re as _re
import types as _types
import urllib.error as _urllib_error
import urllib.request as _urllib_request
import urllib.response as _urllib_response

# Held here so that a function that replaces json's functions for itself does not break the answers.
_dumps = _json.dumps
_loads = _json.loads
_MODULES = {}
_MAX_ERROR = 300
_MAX_DESCRIPTION = 1024
_MAX_PARAMETER_DESCRIPTION = 512


def _short(text, limit=_MAX_ERROR):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _error_text(exc):
    message = str(exc)
    return _short(type(exc).__name__ + (": " + message if message else ""))


def _answer(**fields):
    return _dumps(fields, ensure_ascii=False)


def _fail(kind, error):
    return _answer(ok=False, kind=kind, error=error)


# ---------------------------------------------------------------------------------------------
# Tool definitions
# ---------------------------------------------------------------------------------------------

_SIMPLE = {
    "str": {"type": "string"},
    "bytes": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "dict": {"type": "object"},
    "Dict": {"type": "object"},
    "Mapping": {"type": "object"},
    "MutableMapping": {"type": "object"},
    "list": {"type": "array"},
    "List": {"type": "array"},
    "Sequence": {"type": "array"},
    "Iterable": {"type": "array"},
    "tuple": {"type": "array"},
    "Tuple": {"type": "array"},
    "set": {"type": "array", "uniqueItems": True},
    "Set": {"type": "array", "uniqueItems": True},
    "frozenset": {"type": "array", "uniqueItems": True},
    "None": {"type": "null"},
    "NoneType": {"type": "null"},
    "Any": {},
    "object": {},
}
_ARRAYS = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection"}
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"}
_MAPS = {"dict", "Dict", "Mapping", "MutableMapping"}
_WRAPPERS = {"Required", "NotRequired", "ReadOnly", "Final"}


def _base_name(node):
    if isinstance(node, _ast.Name):
        return node.id
    if isinstance(node, _ast.Attribute):
        return node.attr
    return None


def _union(schemas):
    flat = []
    for schema in schemas:
        for member in schema["anyOf"] if set(schema) == {"anyOf"} else [schema]:
            if member not in flat:
                flat.append(member)
    if any(member == {} for member in flat):
        return {}
    if len(flat) == 1:
        return flat[0]
    if all(set(member) == {"type"} for member in flat):
        kinds = []
        for member in flat:
            for kind in member["type"] if isinstance(member["type"], list) else [member["type"]]:
                if kind not in kinds:
                    kinds.append(kind)
        return {"type": kinds}
    others = [member for member in flat if member != {"type": "null"}]
    if len(others) == 1 and isinstance(others[0].get("type"), str):
        merged = dict(others[0])
        merged["type"] = [merged["type"], "null"]
        return merged
    return {"anyOf": flat}


def _enum(nodes):
    values, kinds = [], []
    for node in nodes:
        try:
            value = _ast.literal_eval(node)
        except Exception:
            continue
        if value is None:
            kind = "null"
        elif isinstance(value, bool):
            kind = "boolean"
        elif isinstance(value, int):
            kind = "integer"
        elif isinstance(value, float):
            kind = "number"
        elif isinstance(value, str):
            kind = "string"
        else:
            continue
        values.append(value)
        if kind not in kinds:
            kinds.append(kind)
    if not kinds:
        return {}
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": values}


def _schema(node, aliases, depth=0):
    if node is None or depth > 20:
        return {}
    sub = lambda child: _schema(child, aliases, depth + 1)
    if isinstance(node, _ast.Constant):
        if node.value is None:
            return {"type": "null"}
        if isinstance(node.value, str):
            try:
                return sub(_ast.parse(node.value.strip(), mode="eval").body)
            except SyntaxError:
                return {}
        return {}
    if isinstance(node, _ast.BinOp) and isinstance(node.op, _ast.BitOr):
        return _union([sub(node.left), sub(node.right)])
    if isinstance(node, _ast.Subscript):
        base = _base_name(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, _ast.Tuple) else [node.slice]
        if base in _ARRAYS:
            return {"type": "array", "items": sub(args[0])}
        if base in _SETS:
            return {"type": "array", "items": sub(args[0]), "uniqueItems": True}
        if base in ("tuple", "Tuple"):
            if len(args) == 2 and isinstance(args[1], _ast.Constant) and args[1].value is Ellipsis:
                return {"type": "array", "items": sub(args[0])}
            return {"type": "array", "items": _union([sub(a) for a in args]), "minItems": len(args), "maxItems": len(args)}
        if base in _MAPS:
            return {"type": "object", "additionalProperties": sub(args[1])} if len(args) == 2 else {"type": "object"}
        if base == "Optional":
            return _union([sub(args[0]), {"type": "null"}])
        if base == "Union":
            return _union([sub(a) for a in args])
        if base == "Literal":
            return _enum(args)
        if base == "Annotated":
            schema = dict(sub(args[0]))
            for extra in args[1:]:
                if isinstance(extra, _ast.Constant) and isinstance(extra.value, str):
                    schema["description"] = _short(extra.value, _MAX_PARAMETER_DESCRIPTION)
                    break
            return schema
        if base in _WRAPPERS:
            return sub(args[0])
        return {}
    name = _base_name(node)
    if isinstance(node, _ast.Name) and name in aliases:
        return sub(aliases[name])
    if name in _SIMPLE:
        return dict(_SIMPLE[name])
    return {}


def _aliases(tree):
    found = {}
    for node in tree.body:
        if isinstance(node, _ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], _ast.Name):
            found[node.targets[0].id] = node.value
        elif isinstance(node, _ast.AnnAssign) and isinstance(node.target, _ast.Name) and node.value is not None:
            if _base_name(node.annotation) == "TypeAlias":
                found[node.target.id] = node.value
        elif type(node).__name__ == "TypeAlias" and isinstance(getattr(node, "name", None), _ast.Name):
            found[node.name.id] = node.value
    return found


_GOOGLE = _re.compile(r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters)\s*:\s*$")
_GOOGLE_ENTRY = _re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_RULE = _re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ENTRY = _re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?::.*)?$")
_SPHINX_PARAM = _re.compile(r"^:param\s+(?:[^:]*?\s+)?\*{0,2}([A-Za-z_]\w*)\s*:\s*(.*)$")
_SPHINX_TYPE = _re.compile(r"^:(type|rtype)\b")


def _indent(line):
    return len(line) - len(line.lstrip())


def _docstring(doc):
    """(description without the parameter sections, {parameter: description})."""
    lines = _inspect.cleandoc(doc).splitlines() if doc else []
    params, kept, i = {}, [], 0
    while i < len(lines):
        line, text, base = lines[i], lines[i].strip(), _indent(lines[i])
        if _GOOGLE.match(text):
            i += 1
            current, entry_indent = None, None
            while i < len(lines):
                body = lines[i].strip()
                if body and _indent(lines[i]) <= base:
                    break
                if body:
                    if entry_indent is None:
                        entry_indent = _indent(lines[i])
                    match = _GOOGLE_ENTRY.match(body) if _indent(lines[i]) == entry_indent else None
                    if match:
                        current = match.group(1)
                        params[current] = match.group(2).strip()
                    elif current:
                        params[current] = (params[current] + " " + body).strip()
                i += 1
            continue
        if text in ("Parameters", "Other Parameters") and i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1]):
            i += 2
            current = None
            while i < len(lines):
                body = lines[i].strip()
                if body and _indent(lines[i]) <= base:
                    if i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1]):
                        break
                    match = _NUMPY_ENTRY.match(body)
                    if not match:
                        break
                    current = match.group(1)
                    params.setdefault(current, "")
                elif body and current:
                    params[current] = (params[current] + " " + body).strip()
                i += 1
            continue
        match = _SPHINX_PARAM.match(text)
        if match or _SPHINX_TYPE.match(text):
            if match:
                current = match.group(1)
                params[current] = match.group(2).strip()
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(":") and _indent(lines[i]) > base:
                if match:
                    params[current] += " " + lines[i].strip()
                i += 1
            continue
        kept.append(line)
        i += 1
    description = _re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    if len(description) > _MAX_DESCRIPTION:
        description = description[: _MAX_DESCRIPTION - 1] + "\u2026"
    return description, params


def _entry(tree, entry):
    defs = [n for n in tree.body if isinstance(n, (_ast.FunctionDef, _ast.AsyncFunctionDef))]
    if entry:
        named = [n for n in defs if n.name == entry]
        return named[-1] if named else None
    public = [n for n in defs if not n.name.startswith("_")]
    return public[0] if public else None


def _parameters(fn, aliases, docs):
    args = fn.args
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    properties, required = {}, []
    for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        schema = dict(_schema(arg.annotation, aliases)) if arg.annotation is not None else {}
        if not any(key in schema for key in ("type", "anyOf", "enum")):
            schema["type"] = "string"
        if default is None:
            required.append(arg.arg)
        else:
            try:
                value = _ast.literal_eval(default)
                _dumps(value)
                schema["default"] = value
            except Exception:
                pass
        text = docs.get(arg.arg)
        if text and "description" not in schema:
            schema["description"] = _short(text, _MAX_PARAMETER_DESCRIPTION)
        properties[arg.arg] = schema
    parameters = {"type": "object", "properties": properties, "required": required}
    if args.kwarg is None:
        parameters["additionalProperties"] = False
    return parameters


def _persona_describe(code, entry):
    try:
        tree = _ast.parse(code, filename="<function>")
    except SyntaxError as exc:
        return _fail("invalid", _short("SyntaxError: %s (line %s)" % (exc.msg, exc.lineno)))
    except BaseException as exc:
        return _fail("invalid", _error_text(exc))
    fn = _entry(tree, entry)
    if fn is None:
        return _fail("invalid", "The code defines no top-level function named %s." % entry if entry else "The code defines no public top-level function.")
    if isinstance(fn, _ast.AsyncFunctionDef):
        return _fail("invalid", "%s is an async def; functions must be a plain def." % fn.name)
    if not _re.fullmatch(r"[A-Za-z0-9_-]{1,64}", fn.name):
        return _fail("invalid", "A function name must be 1 to 64 letters, digits or underscores.")
    description, docs = _docstring(_ast.get_docstring(fn, clean=True) or "")
    tool = {
        "type": "function",
        "function": {"name": fn.name, "description": description, "parameters": _parameters(fn, _aliases(tree), docs)},
    }
    return _answer(ok=True, tool=tool)


# ---------------------------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------------------------

def _load(code):
    key = _hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()
    module = _MODULES.get(key)
    if module is None:
        module = _types.ModuleType("function_module")
        module.__file__ = "<function>"
        exec(compile(code, "<function>", "exec"), module.__dict__)
        _MODULES[key] = module
    return module


def _cap(text, cap):
    data = text.encode("utf-8", "replace")
    if len(data) <= cap:
        return text, False
    marker = " \u2026[truncated: the result was %d bytes]" % len(data)
    keep = max(0, cap - len(marker.encode("utf-8")))
    return data[:keep].decode("utf-8", "ignore") + marker, True


def _persona_call(code, entry, args_json, cap):
    try:
        module = _load(code)
    except BaseException as exc:
        return _fail("raised", _error_text(exc))
    fn = module.__dict__.get(entry)
    if not _inspect.isfunction(fn):
        return _fail("invalid", "The code defines no function named %s." % entry)
    if _inspect.iscoroutinefunction(fn) or _inspect.isasyncgenfunction(fn):
        return _fail("invalid", "%s is an async def; functions must be a plain def." % entry)
    try:
        args = _loads(args_json)
    except ValueError:
        return _fail("invalid", "The arguments are not valid JSON.")
    if not isinstance(args, dict):
        return _fail("invalid", "The arguments must be a JSON object.")
    try:
        positional = []
        for parameter in _inspect.signature(fn).parameters.values():
            if parameter.kind is not parameter.POSITIONAL_ONLY or parameter.name not in args:
                break
            positional.append(args.pop(parameter.name))
        result = fn(*positional, **args)
        text = result if isinstance(result, str) else _dumps(result, ensure_ascii=False, default=str)
    except BaseException as exc:
        return _fail("raised", _error_text(exc))
    text, truncated = _cap(text, int(cap))
    return _answer(ok=True, result=text, truncated=truncated)


# ---------------------------------------------------------------------------------------------
# urllib through the worker's outbound guard
# ---------------------------------------------------------------------------------------------

class _BridgeResponse(_urllib_response.addinfourl):
    def __init__(self, body, headers, url, status, reason):
        super().__init__(_io.BytesIO(body), headers, url, status)
        self.reason = reason
        self.msg = reason

    def getheader(self, name, default=None):
        return self.headers.get(name, default)

    def getheaders(self):
        return list(self.headers.items())


def _request_body(data):
    if data is None:
        return None
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if hasattr(data, "read"):
        chunk = data.read()
        return chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)
    return b"".join(chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk) for chunk in data)


def _bridge_open(self, http_class, req, **kwargs):
    headers = dict(req.unredirected_hdrs)
    headers.update({k: v for k, v in req.headers.items() if k not in headers})
    body = _request_body(req.data)
    timeout = req.timeout if isinstance(req.timeout, (int, float)) and not isinstance(req.timeout, bool) else None
    request = {
        "method": req.get_method(),
        "url": req.full_url,
        "headers": {str(k): str(v) for k, v in headers.items()},
        "body": _base64.b64encode(body).decode("ascii") if body else None,
        "timeout": timeout,
    }
    import _persona_bridge  # registered by child.mjs after start (not part of the memory snapshot)

    answer = _loads(_persona_bridge.request(_dumps(request)))
    if "error" in answer:
        raise _urllib_error.URLError(answer["error"])
    message = _http_client.HTTPMessage()
    for name, value in answer["headers"]:
        message[name] = value
    return _BridgeResponse(_base64.b64decode(answer["body"]), message, answer["url"], answer["status"], answer.get("reason") or "")


_urllib_request.AbstractHTTPHandler.do_open = _bridge_open
`;
