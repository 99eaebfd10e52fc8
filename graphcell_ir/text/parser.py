"""The ``.gcir`` parser: text back to a Module, or an ``IRParseError`` saying where and what.

Grammar (``NL`` is a line end; the printer's output is the canonical form)::

    module    ::= (func NL*)*
    func      ::= 'func' SYMBOL '(' (arg (',' arg)*)? ')' ('->' type (',' type)*)?
                  ('attributes' attrdict)? '{' NL op* '}'
    arg       ::= VALUE ':' type 'param'?
    op        ::= (VALUE (',' VALUE)* '=')? NAME '(' operands? ')' attrdict? (':' types)?
                  region* LOC? NL
                | TERMINATOR operands? LOC? NL                    yield / return
    operands  ::= operand (',' operand)*
    operand   ::= VALUE | (INT | FLOAT | 'true' | 'false') ':' DTYPE | 'none'
    types     ::= type                      one result
                | '(' type (',' type)+ ')'  several results (the names on the left say how many)
    type      ::= DTYPE '[' (INT (',' INT)*)? ']' | DTYPE | 'none' | '(' (type (',' type)* ','?)? ')'
    region    ::= (LABEL ('(' arg (',' arg)* ')')?)? '{' NL op* '}'
                  (the first region's label is left out when it has no arguments)
    attrdict  ::= '{' (NAME '=' value (',' NAME '=' value)*)? '}'
    value     ::= INT | FLOAT | STRING | 'true' | 'false' | 'none' | DTYPE | '...' | SYMBOL
                | '[' (elem (',' elem)*)? ']'
    elem      ::= value | INT? ':' INT? (':' INT?)?                  slices, in INDEX attributes
    LOC       ::= 'loc(' frame (' <- ' frame)* ')'
    frame     ::= FILE ':' INT (':' INT)? (SCOPE ('>' SCOPE)*)? ('[' MARK (',' MARK)* ']')?

Names are resolved function-wide in text order (a value must be written before it is used);
which values an op may see (region scoping) is the verifier's business. A parsed name becomes
the value's ``name_hint`` unless it is a number. Op names resolve to the IR-structural ops first,
then to the registry.

Example::

    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %y = mul(%x, 2.0:f32) : f32[2]\\n  return %y\\n}\\n")
    >>> [op.opdef.name for op in m["f"].body]
    ['mul', 'return']
"""
from __future__ import annotations

import json
from typing import Mapping

import numpy as np

from graphcell_ir.errors import GraphcellError, IRParseError
from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, Region, Value
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.structural import StructuralOpDef, resolve_opdef
from graphcell_ir.ir.types import (NONE, OBJECT, DType, ScalarType, TensorType, TupleType,
                                   Type)
from graphcell_ir.text.lexer import Source, Token, lex
from graphcell_ir.text.locs import read_loc
from graphcell_ir.text.values import HostRef

MAX_DEPTH = 100
"""How deeply regions, types and lists may nest (deeper text is rejected, not a RecursionError)."""

_DTYPES = {d.short: d for d in DType}


def parse_module(text: str | bytes, *, filename: str = "<string>",
                 consts: Mapping[str, np.ndarray] | None = None) -> Module:
    """Parse ``.gcir`` text. ``consts`` fills the module's constant table (``const`` ops with
    ``{ref="consts/N"}`` point into it); without it those constants have a type but no value."""
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), filename)
    m = _Parser(text, filename).module()
    if consts:
        m.consts.update(consts)
    return m


def parse_function(text: str | bytes, *, filename: str = "<string>") -> Function:
    """Parse text holding exactly one function."""
    m = parse_module(text, filename=filename)
    if len(m) != 1:
        raise IRParseError(f"expected exactly one function, found {len(m)}", filename=filename,
                           line=1, col=1, source_line="")
    fn = next(iter(m))
    m.remove(fn.name)
    return fn


def _decode(data: bytes, filename: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        prefix = data[:e.start].decode("utf-8", "replace")
        src = Source(prefix + "\ufffd", filename)
        raise src.error(len(prefix), "the text is not valid UTF-8") from None


def _describe(tok: Token) -> str:
    kind, text, _ = tok
    return {"NL": "end of line", "EOF": "end of input"}.get(kind, repr(text))


def _short(text: str) -> str:
    """A literal as an error message quotes it: long ones shortened."""
    return text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} digits)"


def _hint(name_token: str) -> str | None:
    name = name_token[1:]
    return None if name.isdigit() else name


def _tuplify(v):
    if isinstance(v, list):
        return tuple(_tuplify(e) for e in v)
    return v


class _Parser:
    def __init__(self, text: str, filename: str):
        self.src = Source(text, filename)
        self.toks = lex(text, self.src)
        self.i = 0
        self.depth = 0
        self.values: dict[str, Value] = {}
        self.locs: dict[str, Loc] = {}  # ops of one source line share one Loc object

    # -- tokens --
    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        tok = self.toks[self.i]
        if tok[0] != "EOF":
            self.i += 1
        return tok

    def at(self, kind: str, text: str | None = None) -> bool:
        tok = self.toks[self.i]
        return tok[0] == kind and (text is None or tok[1] == text)

    def accept(self, kind: str, text: str | None = None) -> Token | None:
        return self.next() if self.at(kind, text) else None

    def expect(self, kind: str, text: str | None = None, what: str = "") -> Token:
        if self.at(kind, text):
            return self.next()
        raise self.error(f"expected {what or repr(text) or kind}, found {_describe(self.peek())}")

    def error(self, message: str, tok: Token | None = None) -> IRParseError:
        tok = tok or self.peek()
        return self.src.error(tok[2], message)

    def skip_nl(self) -> None:
        while self.at("NL"):
            self.i += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nesting deeper than {MAX_DEPTH} levels")

    def int_of(self, tok: Token) -> int:
        try:
            return int(tok[1])
        except ValueError:
            raise self.error("integer literal is too long", tok) from None

    # -- module and functions --
    def module(self) -> Module:
        m = Module()
        self.skip_nl()
        while not self.at("EOF"):
            self.expect("NAME", "func", "'func' to start a function")
            name_tok = self.peek()
            fn = self.function()
            if fn.name in m:
                raise self.error(f"function @{fn.name} is defined twice", name_tok)
            m.add(fn)
            self.skip_nl()
        return m

    def symbol(self, tok: Token) -> str:
        text = tok[1][1:]
        if text.startswith('"'):
            return self.string(tok, text)
        return text

    def string(self, tok: Token, text: str) -> str:
        try:
            return json.loads(text)
        except ValueError as e:
            raise self.error(f"bad string literal: {e}", tok) from None

    def function(self) -> Function:
        fn = Function(self.symbol(self.expect("SYMBOL", what="a function name like @f")))
        self.values = {}
        self.expect("PUNCT", "(", "'(' to open the argument list")
        if not self.at("PUNCT", ")"):
            while True:
                tok, t = self.binder()
                param = self.accept("NAME", "param") is not None
                self.define(tok, fn.add_arg(t, _hint(tok[1]), param=param))
                if not self.accept("PUNCT", ","):
                    break
        self.expect("PUNCT", ")", "',' or ')' after an argument")
        results: list[Type] = []
        if self.accept("ARROW"):
            results.append(self.type())
            while self.accept("PUNCT", ","):
                results.append(self.type())
        fn.result_types = tuple(results)
        if self.accept("NAME", "attributes"):
            fn.attrs = {k: _tuplify(v) for k, v in self.attr_dict().items()}
        self.expect("PUNCT", "{", "'{' to open the function body")
        self.expect("NL", what="end of line after '{'")
        self.block_body(fn.body)
        if not self.at("EOF"):
            self.expect("NL", what="end of line after '}'")
        return fn

    def binder(self) -> tuple[Token, Type]:
        tok = self.expect("VALUE", what="an argument like %x: f32[3]")
        self.expect("PUNCT", ":", f"':' and the type of {tok[1]}")
        return tok, self.type()

    def define(self, tok: Token, v: Value) -> None:
        if tok[1] in self.values:
            raise self.error(f"{tok[1]} is defined twice", tok)
        self.values[tok[1]] = v

    def block_body(self, block: Block) -> None:
        while True:
            self.skip_nl()
            if self.accept("PUNCT", "}"):
                return
            if self.at("EOF"):
                raise self.error("expected '}' to close the block, found end of input")
            self.op(block)

    # -- ops --
    def op(self, block: Block) -> None:
        result_toks: list[Token] = []
        if self.at("VALUE"):
            result_toks.append(self.next())
            while self.accept("PUNCT", ","):
                result_toks.append(self.expect("VALUE", what="a result name like %y"))
            self.expect("PUNCT", "=", "'=' after the result names")
        name_tok = self.expect("NAME", what="an op name")
        try:
            opdef = resolve_opdef(name_tok[1])
        except KeyError as e:
            raise self.error(f"unknown op: {e.args[0]}", name_tok) from None
        if getattr(opdef, "terminator", False):
            return self.terminator(block, opdef, name_tok, result_toks)
        self.expect("PUNCT", "(", f"'(' after {name_tok[1]}")
        operands = self.operands(")")
        attrs_tok, attrs = self.peek(), {}
        if self.at("PUNCT", "{") and self.peek(1)[0] != "NL":
            attrs = self.attr_dict()
        types: tuple[Type, ...] = ()
        if self.at("PUNCT", ":"):
            if not result_toks:
                raise self.error(f"a type follows ':' only when {name_tok[1]} has results "
                                 "named on the left of '='")
            self.next()
            types = self.result_types(len(result_toks))
        elif result_toks:
            raise self.error(f"expected ':' and the type of {name_tok[1]}'s result(s), found "
                             f"{_describe(self.peek())}")
        regions = self.regions(opdef, name_tok)
        loc = self.loc()
        op = self.build(opdef, operands, types, attrs, regions, loc, name_tok, attrs_tok)
        for tok, r in zip(result_toks, op.results):
            r.name_hint = _hint(tok[1])
            self.define(tok, r)
        block.append(op)
        self.end_of_op(name_tok)

    def terminator(self, block, opdef, name_tok: Token, result_toks) -> None:
        if result_toks:
            raise self.error(f"{name_tok[1]} has no results", name_tok)
        operands = []
        if not (self.at("NL") or self.at("LOC") or self.at("EOF")):
            operands = self.operands(None)
        loc = self.loc()
        block.append(self.build(opdef, operands, (), {}, [], loc, name_tok, name_tok))
        self.end_of_op(name_tok)

    def end_of_op(self, name_tok: Token) -> None:
        if not self.accept("NL") and not self.at("EOF"):
            raise self.error(f"expected end of line after {name_tok[1]}, found "
                             f"{_describe(self.peek())}")

    def build(self, opdef, operands, types, attrs, regions, loc, name_tok, attrs_tok) -> Op:
        try:
            if isinstance(opdef, StructuralOpDef):
                attrs = opdef.attrs_from_text(attrs, types)
            else:
                attrs = {k: _tuplify(v) for k, v in attrs.items()}
            return Op(opdef, operands, types, attrs, regions, loc)
        except (GraphcellError, ValueError, TypeError, OverflowError) as e:
            raise self.error(f"bad attributes for {name_tok[1]}: {e}", attrs_tok) from None

    def operands(self, close: str | None) -> list[Value]:
        """Operands up to ``close`` (consumed), or to the end of a terminator's line."""
        out: list[Value] = []
        if close is not None and self.accept("PUNCT", close):
            return out
        while True:
            out.append(self.operand())
            if self.accept("PUNCT", ","):
                continue
            if close is not None:
                self.expect("PUNCT", close, f"',' or '{close}' after an operand")
            return out

    def operand(self) -> Value:
        tok = self.peek()
        kind, text, _ = tok
        if kind == "VALUE":
            self.next()
            v = self.values.get(text)
            if v is None:
                raise self.error(f"use of undefined value {text}", tok)
            return v
        if kind == "NAME" and text == "none":
            self.next()
            return Literal(None)
        if kind in ("INT", "FLOAT") or (kind == "NAME" and text in ("true", "false")):
            self.next()
            value = (self.int_of(tok) if kind == "INT" else float(text) if kind == "FLOAT"
                     else text == "true")
            self.expect("PUNCT", ":", f"':' and a dtype after the literal {text}")
            dtok = self.expect("NAME", what="the literal's dtype (f32, i64, bool...)")
            d = _DTYPES.get(dtok[1])
            if d is None or self.at("PUNCT", "["):
                raise self.error("a literal's type is a scalar dtype such as f32, i64 or bool "
                                 "(tensor constants are const ops)", dtok)
            return self.literal(value, d, tok)
        raise self.error(f"expected an operand (%name or a literal such as 1.0:f32), found "
                         f"{_describe(tok)}")

    def literal(self, value, d: DType, tok: Token) -> Literal:
        if d.is_int and not isinstance(value, float):
            info = np.iinfo(d.np_dtype)
            if not info.min <= value <= info.max:
                raise self.error(f"{value} is out of range for {d.short}", tok)
        try:
            return Literal(value, ScalarType(d))
        except GraphcellError as e:
            raise self.error(str(e), tok) from None
        except OverflowError:   # an integer literal too large for any float (10**400:f32)
            raise self.error(f"the literal {_short(tok[1])} is too large for {d.short}",
                             tok) from None

    def result_types(self, n: int) -> tuple[Type, ...]:
        if n == 1:
            return (self.type(),)
        open_tok = self.expect("PUNCT", "(", f"'(' and the {n} result types")
        types = [self.type()]
        while self.accept("PUNCT", ","):
            types.append(self.type())
        self.expect("PUNCT", ")", "',' or ')' after a result type")
        if len(types) != n:
            raise self.error(f"{n} results are named but {len(types)} types are given", open_tok)
        return tuple(types)

    # -- types --
    def type(self) -> Type:
        self.enter()
        try:
            return self._type()
        finally:
            self.depth -= 1

    def _type(self) -> Type:
        tok = self.peek()
        if self.accept("PUNCT", "("):
            elems: list[Type] = []
            while not self.accept("PUNCT", ")"):
                elems.append(self.type())
                if not self.accept("PUNCT", ","):
                    self.expect("PUNCT", ")", "',' or ')' in a tuple type")
                    break
            return TupleType(tuple(elems))
        if tok[0] == "NAME" and tok[1] == "none":
            self.next()
            return NONE
        if tok[0] == "NAME" and tok[1] == "obj":
            self.next()
            return OBJECT
        d = _DTYPES.get(tok[1]) if tok[0] == "NAME" else None
        if d is None:
            raise self.error(f"expected a type such as f32[2,3], f32, (f32, i64) or none, found "
                             f"{_describe(tok)}")
        self.next()
        if not self.accept("PUNCT", "["):
            return ScalarType(d)
        return TensorType(d, self.dims())

    def dims(self) -> tuple[int, ...]:
        """The dimension sizes of a shape, after its ``[``."""
        dims: list[int] = []
        while not self.accept("PUNCT", "]"):
            dtok = self.expect("INT", what="a dimension size")
            size = self.int_of(dtok)
            if size < 0:
                raise self.error("a dimension size cannot be negative", dtok)
            dims.append(size)
            if not self.accept("PUNCT", ","):
                self.expect("PUNCT", "]", "',' or ']' in a shape")
                break
        return tuple(dims)

    # -- attributes --
    def attr_dict(self) -> dict:
        self.expect("PUNCT", "{", "'{' to open the attributes")
        attrs: dict = {}
        if self.accept("PUNCT", "}"):
            return attrs
        while True:
            key = self.expect("NAME", what="an attribute name")
            if key[1] in attrs:
                raise self.error(f"attribute {key[1]} is given twice", key)
            self.expect("PUNCT", "=", f"'=' after the attribute name {key[1]}")
            attrs[key[1]] = self.value()
            if not self.accept("PUNCT", ","):
                self.expect("PUNCT", "}", "',' or '}' after an attribute")
                return attrs

    def value(self):
        self.enter()
        try:
            return self._value()
        finally:
            self.depth -= 1

    def _value(self):
        tok = self.next()
        kind, text, _ = tok
        if kind == "INT":
            return self.int_of(tok)
        if kind == "FLOAT":
            return float(text)
        if kind == "STRING":
            return self.string(tok, text)
        if kind == "ELLIPSIS":
            return Ellipsis
        if kind == "SYMBOL":
            return HostRef(self.symbol(tok))
        if kind == "NAME":
            if text in _KEYWORD_VALUES:
                return _KEYWORD_VALUES[text]
            if text in _DTYPES:   # a dtype, or a tensor type (a TYPES attribute)
                return TensorType(_DTYPES[text], self.dims()) if self.accept("PUNCT", "[") \
                    else _DTYPES[text]
        if kind == "PUNCT" and text == "[":
            items = []
            while not self.accept("PUNCT", "]"):
                items.append(self.elem())
                if not self.accept("PUNCT", ","):
                    self.expect("PUNCT", "]", "',' or ']' in a list")
                    break
            return items
        raise self.error(f"expected an attribute value (number, string, true, false, none, "
                         f"dtype, [list]), found {_describe(tok)}", tok)

    def elem(self):
        if self.at("PUNCT", ":") or (self.at("INT") and self.peek(1)[:2] == ("PUNCT", ":")):
            start = self.int_of(self.next()) if self.at("INT") else None
            self.expect("PUNCT", ":")
            stop = self.int_of(self.next()) if self.at("INT") else None
            step = None
            if self.accept("PUNCT", ":") and self.at("INT"):
                step = self.int_of(self.next())
            return slice(start, stop, step)
        return self.value()

    # -- regions and locations --
    def regions(self, opdef, name_tok: Token) -> list[Region]:
        labels = getattr(opdef, "region_names", ())
        out: list[Region] = []
        while True:
            tok = self.peek()
            bare = tok[:2] == ("PUNCT", "{") and self.peek(1)[0] == "NL"
            labelled = tok[0] == "NAME" and self.peek(1)[:2] in (("PUNCT", "("), ("PUNCT", "{"))
            if not (bare or labelled):
                break
            i = len(out)
            if i >= len(labels):
                raise self.error(f"{name_tok[1]} takes {len(labels) or 'no'} region(s)", tok)
            if labelled:
                if tok[1] != labels[i]:
                    raise self.error(f"expected region '{labels[i]}' of {name_tok[1]}, found "
                                     f"{tok[1]!r}", tok)
                self.next()
            elif i > 0:
                raise self.error(f"expected the label '{labels[i]}' before this region", tok)
            block = Block()
            if self.accept("PUNCT", "("):
                while True:
                    btok, t = self.binder()
                    self.define(btok, block.add_arg(t, _hint(btok[1])))
                    if not self.accept("PUNCT", ","):
                        break
                self.expect("PUNCT", ")", "',' or ')' after a region argument")
            self.expect("PUNCT", "{", "'{' to open the region")
            self.expect("NL", what="end of line after '{'")
            self.enter()
            self.block_body(block)
            self.depth -= 1
            out.append(Region(block))
        if len(out) != len(labels):
            raise self.error(f"{name_tok[1]} needs {len(labels)} region(s) "
                             f"({', '.join(labels)}), found {len(out)}")
        return out

    def loc(self) -> Loc:
        tok = self.accept("LOC")
        if tok is None:
            return UNKNOWN
        loc = self.locs.get(tok[1])
        if loc is None:
            loc = self.locs[tok[1]] = read_loc(self.src, tok)
        return loc


_KEYWORD_VALUES = {"true": True, "false": False, "none": None, "obj": OBJECT}
