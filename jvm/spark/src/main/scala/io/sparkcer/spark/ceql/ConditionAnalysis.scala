package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Average, Count, First, Last, Max, Min, Sum}
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.BooleanType

import io.sparkcer.engine.ceql.{Condition, Slot, SlotFunction}
import io.sparkcer.spark.common.{CerErrors, ExpressionResolver, SparkPredicate}

/**
 * Compiles a condition relating events (an n-ary formula, the RMA paper's §3) with Spark, as [[CerAnalysis]]
 * compiles guards: its Spark text parsed by the session's parser, its names checked, then resolved by Spark's
 * analyzer against a stand-in relation with one struct of the event's `columns` per variable (named by the
 * variable, so `b.price` is a field of `b`) and one attribute per slot, of the slot's type. A slot's argument is
 * resolved against the struct of its variable alone; an aggregate's type is that of Spark's own aggregate function
 * over it.
 */
final class ConditionAnalysis(session: SparkSession, text: String, columns: Seq[Attribute],
    resolve: ExpressionResolver) {
  private val resolver = session.sessionState.conf.resolver
  private val names = columns.map(_.name)
  private val struct = DataTypeUtils.fromAttributes(columns)

  def apply(c: Condition): CerCondition = {
    val parsed = CerErrors.parsing(ParsedCondition(c, text, session.sessionState.sqlParser))
    CerErrors.analyzing(parsed.checkReferences(names, resolver))
    val structs = c.allVariables.map(v => v -> AttributeReference(v, struct, nullable = false)()).toMap
    val slots = c.slots.zip(parsed.arguments).map { case (s, argument) => slot(s, argument, structs(s.variable.value)) }
    val slotInputs = parsed.slotNames.zip(slots).map { case (name, e) => AttributeReference(name, e.dataType)() }
    val slotTypes = parsed.slotNames.zip(c.slots.map(ParsedCondition.call).zip(slots.map(_.dataType))).toMap
    CerErrors.analyzing(
      parsed.predicate.checkComparisons {
        case UnresolvedAttribute(Seq(v, column)) if c.variables.exists(resolver(_, v)) =>
          columns.find(a => resolver(a.name, column)).map(a => s"$v.$column" -> a.dataType)
        case UnresolvedAttribute(Seq(name)) => slotTypes.find(s => resolver(s._1, name)).map(_._2)
        case _ => None
      })
    val inputs = c.variables.map(structs) ++ slotInputs
    val predicate = resolve(parsed.predicate.expression, inputs, Some(parsed.predicate))
    if (predicate.dataType != BooleanType)
      throw CerErrors.analysis(
        s"the condition ${c.text} is ${predicate.dataType.sql}, not BOOLEAN: a filter must be a " +
          s"condition, e.g. ${c.text} > 0", c.pos, text, c.text.length)
    CerCondition(predicate, slots, inputs, columns)
  }

  /** Spark's aggregate function over the slot's argument, or `prev`'s argument, over the struct of its variable. */
  private def slot(s: Slot, parsed: Option[SparkPredicate], variable: Attribute): Expression = {
    val argument = parsed.fold[Expression](variable)(a => resolve(a.expression, Seq(variable), Some(a)))
    // Placed where the argument is written, as Spark's runtime errors (an ANSI overflow) name it.
    val function = CurrentOrigin.withOrigin(argument.origin)(
      s.function match {
        case SlotFunction.Prev => argument
        case SlotFunction.Count => Count(argument)
        case SlotFunction.Sum => Sum(argument)
        case SlotFunction.Avg => Average(argument)
        case SlotFunction.Min => Min(argument)
        case SlotFunction.Max => Max(argument)
        case SlotFunction.First => First(argument, ignoreNulls = false)
        case SlotFunction.Last => Last(argument, ignoreNulls = false)
      })
    if (function.checkInputDataTypes().isFailure) {
      val call = ParsedCondition.call(s)
      val problem =
        if (s.function == SlotFunction.Min || s.function == SlotFunction.Max)
          s"$call is over ${argument.dataType.sql} values, which cannot be ordered"
        else ExpressionResolver.notNumbers(call, s.argument.fold(s.variable.value)(_.text), argument.dataType)
      throw CerErrors.analysis(problem, s.pos, text, call.length)
    }
    function
  }
}

/**
 * A condition's Spark texts, parsed by Spark: the condition, in which each aggregate or `prev` call is a column
 * named by its slot, and each slot's argument (None for `count(b)`).
 */
final case class ParsedCondition(condition: Condition, predicate: SparkPredicate,
    arguments: Seq[Option[SparkPredicate]]) {
  /** The columns that stand for the slots in the condition's Spark text. */
  def slotNames: Seq[String] = condition.slots.map(_.name.stripPrefix("`").stripSuffix("`"))

  /**
   * Every column is named through its variable (`b.price`), and exists; a slot's argument names its own variable's
   * (the engine checked that it names no other).
   */
  def checkReferences(columns: Seq[String], resolver: Resolver): Unit = {
    predicate.checkReferences(condition.variables, slotNames, columns, resolver)
    condition.slots.zip(arguments).foreach { case (s, argument) =>
      argument.foreach(_.checkReferences(Seq(s.variable.value), Nil, columns, resolver))
    }
  }
}

object ParsedCondition {
  def apply(c: Condition, query: String, parser: ParserInterface): ParsedCondition = {
    val arguments =
      c.slots.map(s => s.argument.map(a => SparkPredicate.parse(a, SparkPredicate.Source(s, a), query, parser)))
    ParsedCondition(c, SparkPredicate.parse(c.predicate, SparkPredicate.Source(c), query, parser), arguments)
  }

  /** A slot's call as messages write it: `sum(b.volume)`, `count(b)`. */
  def call(s: Slot): String = s"${s.function.name}(${s.argument.fold(s.variable.value)(_.text)})"
}
