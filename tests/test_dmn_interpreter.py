"""seams.lang.dmn_eval: DMN decisions of every kind on small models written for these tests (in the shapes
of the DMN TCK's compliance-level-3 models): tables, relations, lists, conditionals, imports, scopes, types."""

from __future__ import annotations

from decimal import Decimal

import pytest
from lxml import etree

from seams.lang.dmn_eval import DmnInterpreter, DmnModel, Unsupported

D = Decimal
NS = "https://www.omg.org/spec/DMN/20230324/MODEL/"


def model(body: str, namespace: str = "urn:test:main", extra: str = "") -> DmnModel:
    text = f'<definitions xmlns="{NS}" id="m" name="m" namespace="{namespace}" {extra}>{body}</definitions>'
    return DmnModel(etree.fromstring(text.encode()))


def literal(text: str) -> str:
    return f"<literalExpression><text>{text}</text></literalExpression>"


def needs(*ids: str) -> str:
    return "".join(f'<informationRequirement><required{"Input" if i.startswith("i_") else "Decision"} '
                   f'href="#{i}"/></informationRequirement>' for i in ids)


MAIN = model(f"""
  <itemDefinition name="tNumbers" isCollection="true"><typeRef>number</typeRef></itemDefinition>
  <inputData id="i_Scores" name="Scores"><variable name="Scores" typeRef="tNumbers"/></inputData>
  <inputData id="i_Age" name="Age"><variable name="Age" typeRef="number"/></inputData>
  <decision id="d_Points" name="Points">{needs("i_Age")}
    <decisionTable hitPolicy="COLLECT" aggregation="SUM">
      <input><inputExpression><text>Age</text></inputExpression></input>
      <output/>
      <rule><inputEntry><text>&gt;= 18</text></inputEntry><outputEntry><text>10</text></outputEntry></rule>
      <rule><inputEntry><text>[18..65]</text></inputEntry><outputEntry><text>5</text></outputEntry></rule>
      <rule><inputEntry><text>&lt; 18</text></inputEntry><outputEntry><text>1</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="d_Labels" name="Labels">{needs("i_Age")}
    <decisionTable hitPolicy="RULE ORDER">
      <input><inputExpression><text>Age</text></inputExpression></input>
      <output name="label"/><output name="weight"/>
      <rule><inputEntry><text>-</text></inputEntry>
        <outputEntry><text>"any"</text></outputEntry><outputEntry><text>1</text></outputEntry></rule>
      <rule><inputEntry><text>&gt; 60</text></inputEntry>
        <outputEntry><text>"senior"</text></outputEntry><outputEntry><text>Age / 10</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="d_Unique" name="Unique">{needs("i_Age")}
    <decisionTable hitPolicy="UNIQUE">
      <input><inputExpression><text>Age</text></inputExpression></input>
      <output/>
      <rule><inputEntry><text>&gt; 10</text></inputEntry><outputEntry><text>"a"</text></outputEntry></rule>
      <rule><inputEntry><text>&gt; 20</text></inputEntry><outputEntry><text>"b"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="d_Rates" name="Rates">
    <relation>
      <column name="band"/><column name="rate"/>
      <row>{literal('"low"')}{literal("0.01")}</row>
      <row>{literal('"high"')}{literal("0.05")}</row>
    </relation>
  </decision>
  <decision id="d_Rate" name="Rate">{needs("d_Rates", "i_Age")}
    <conditional>
      <if>{literal("Age &gt; 40")}</if>
      <then>{literal('Rates[band = "high"].rate[1]')}</then>
      <else>{literal('Rates[band = "low"].rate[1]')}</else>
    </conditional>
  </decision>
  <decision id="d_Bounds" name="Bounds">{needs("i_Scores")}
    <list>{literal("min(Scores)")}{literal("max(Scores)")}</list>
  </decision>
  <decision id="d_Blind" name="Blind">{literal("Age + 1")}</decision>
  <decision id="d_First" name="First"><variable name="First" typeRef="number"/>{needs("i_Scores")}
    {literal("Scores[item &gt; 2]")}</decision>
""")


@pytest.mark.parametrize(("decision", "inputs", "expected"), [
    ("Points", {"Age": 30}, D(15)),
    ("Points", {"Age": 70}, D(10)),
    ("Points", {"Age": None}, None),  # COLLECT SUM with no rule matching: null
    ("Labels", {"Age": 70}, [{"label": "any", "weight": D(1)}, {"label": "senior", "weight": D(7)}]),
    ("Unique", {"Age": 30}, None),  # two rules of a UNIQUE table: an error, so null
    ("Unique", {"Age": 15}, "a"),
    ("Rate", {"Age": 50}, D("0.05")),
    ("Rate", {"Age": 20}, D("0.01")),
    ("Bounds", {"Scores": [3, 1, 2]}, [D(1), D(3)]),
    ("Bounds", {"Scores": 4}, [D(4), D(4)]),  # one number where a collection is declared: a list of it
    ("Blind", {"Age": 30}, None),  # Age is no requirement of Blind: not in its scope
    ("First", {"Scores": [1, 5]}, D(5)),  # a one-item list where a number is declared: the item
    ("First", {"Scores": [3, 5]}, None),  # two items are no number
])
def test_decision_values(decision, inputs, expected):
    assert DmnInterpreter(MAIN).decide(decision, inputs) == expected


def test_errors_of_the_last_decision_are_kept():
    interpreter = DmnInterpreter(MAIN)
    assert interpreter.decide("Unique", {"Age": 30}) is None
    assert any("UNIQUE" in error for error in interpreter.errors)


LIBRARY = model("""
  <itemDefinition name="tPerson"><itemComponent name="name"><typeRef>string</typeRef></itemComponent></itemDefinition>
  <businessKnowledgeModel id="b_Greet" name="Greet">
    <encapsulatedLogic><formalParameter name="who" typeRef="tPerson"/>
      <literalExpression><text>"Hello " + who.name</text></literalExpression></encapsulatedLogic>
  </businessKnowledgeModel>
""", namespace="urn:test:library")

CALLER = model("""
  <import name="lib" namespace="urn:test:library" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/>
  <inputData id="i_P" name="P"><variable name="P" typeRef="lib.tPerson"/></inputData>
  <decision id="d_Hi" name="Hi">
    <informationRequirement><requiredInput href="#i_P"/></informationRequirement>
    <knowledgeRequirement><requiredKnowledge href="urn:test:library#b_Greet"/></knowledgeRequirement>
    <invocation>
      <literalExpression><text>lib.Greet</text></literalExpression>
      <binding><parameter name="who"/><literalExpression><text>P</text></literalExpression></binding>
    </invocation>
  </decision>
  <decision id="d_Java" name="Java"><functionDefinition kind="Java"/></decision>
""")


def test_an_imported_bkm_and_item_definition():
    interpreter = DmnInterpreter(CALLER, {"lib": LIBRARY})
    assert interpreter.decide("Hi", {"P": {"name": "Ann"}}) == "Hello Ann"
    assert interpreter.decide("Hi", {"P": {"nom": "Ann"}}) is None  # no tPerson: null


def test_what_is_not_evaluated_is_named():
    interpreter = DmnInterpreter(CALLER, {"lib": LIBRARY})
    with pytest.raises(Unsupported, match="Java function definition"):
        interpreter.decide("Java", {})
    with pytest.raises(Unsupported, match="no decision named 'Nope'"):
        interpreter.decide("Nope", {})
