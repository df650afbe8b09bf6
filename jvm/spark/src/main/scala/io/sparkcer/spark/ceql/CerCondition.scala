package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeSet, BinaryComparison, EqualTo, Expression, GenericInternalRow, GreaterThan, GreaterThanOrEqual,
  LessThan, LessThanOrEqual, MutableProjection, Predicate, PrettyAttribute, Unevaluable
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, Count, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.util.{toPrettySQL, TypeUtils}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{BooleanType, DataType}
import org.apache.spark.unsafe.types.UTF8String

import io.sparkcer.engine.eval.Aggregation

/**
 * A condition relating events (an n-ary formula, the RMA paper's §3) as the CER operators carry it
 * ([[CerOperator.conditions]]), so that Catalyst sees its expressions and keeps the columns it reads.
 *
 * @param predicate the condition: a boolean expression over `inputs`
 * @param slots     per slot of the condition, over the struct of the slot's variable: Spark's aggregate function
 *                  over the slot's argument (`sum(b.volume)`; `count(b)` counts the structs, which are never NULL),
 *                  or for `prev` the argument itself
 * @param inputs    what the engine binds, not columns of the operator's child (as a higher-order function binds
 *                  the variables of its lambda): one struct of `columns` per variable of the condition, in the
 *                  engine's order ([[io.sparkcer.engine.ceql.Condition.variables]]), then one attribute per slot
 * @param columns   the input columns an event's struct holds: what the condition reads of the operator's child
 */
final case class CerCondition(predicate: Expression, slots: Seq[Expression], inputs: Seq[Attribute],
    columns: Seq[Attribute])
    extends Expression with Unevaluable {

  override def children: Seq[Expression] = predicate +: (slots ++ columns)
  @transient override lazy val references: AttributeSet = AttributeSet(columns)
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = false

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): CerCondition =
    copy(predicate = newChildren.head, slots = newChildren.slice(1, 1 + slots.length),
      columns = newChildren.drop(1 + slots.length).map(_.asInstanceOf[Attribute]))

  private def slotInputs: Seq[Attribute] = inputs.takeRight(slots.length)

  /** The condition as written, with Spark's coercions: each slot is shown as its call, `b.price > prev(b.price)`. */
  override def sql: String = {
    val calls = slotInputs.zip(slots).map {
      case (input, a: AggregateFunction) => input.exprId -> toPrettySQL(a)
      case (input, argument) => input.exprId -> s"prev(${toPrettySQL(argument)})"
    }.toMap
    toPrettySQL(
      predicate.transform {
        case a: Attribute if calls.contains(a.exprId) => PrettyAttribute(calls(a.exprId))
      })
  }

  override def toString: String = sql

  /** The condition compiled for one task over rows of `input`. */
  def bind(input: Seq[Attribute], partitionIndex: Int): CerCondition.Bound =
    new CerCondition.Bound(this, input, partitionIndex)
}

object CerCondition {

  /**
   * One task's compiled condition. An event's struct is a view of its columns in the row the engine holds (as
   * [[MatchWriter]]'s structs are), so binding an event copies nothing.
   */
  final class Bound(condition: CerCondition, input: Seq[Attribute], partitionIndex: Int) {
    private val struct = new EventStruct(condition.columns, input)
    private def view() = struct.view()

    private val views = Array.fill(condition.inputs.length - condition.slots.length)(view())
    private val values = new Array[Any](condition.inputs.length)
    views.copyToArray(values)
    private val bound = new GenericInternalRow(values)
    private val predicate = Predicate.create(condition.predicate, condition.inputs)
    predicate.initialize(partitionIndex)

    /**
     * An expression over one variable's struct, compiled, which `event` views: a slot's argument (an aggregate's child,
     * or prev's argument itself), or a side of an equality.
     */
    private final class Argument(slot: Expression) {
      private val argument = slot match {
        case a: AggregateFunction => a.children.head
        case e => e
      }
      private val projection = MutableProjection.create(Seq(argument), argument.references.toSeq)
      projection.initialize(partitionIndex)
      private val event = view()
      private val row = new GenericInternalRow(Array[Any](event))

      def apply(e: InternalRow): Any = {
        event.project(e)
        projection(row).get(0, argument.dataType)
      }
    }
    private val arguments = condition.slots.map(new Argument(_)).toArray

    /** Whether the condition is TRUE with its variables bound to `events` and its slots to `slots`. */
    def holds(events: Array[AnyRef], slots: Array[Any]): Boolean = {
      var v = 0
      while (v < views.length) { views(v).project(events(v).asInstanceOf[InternalRow]); v += 1 }
      System.arraycopy(slots, 0, values, views.length, slots.length)
      predicate.eval(bound)
    }

    def argument(slot: Int, event: InternalRow): Any = arguments(slot)(event)

    /** The sides of an equality `a.x = b.y` (with Spark's coercions), each over its variable's struct: PCEA's keys. */
    private lazy val sides: Array[Argument] = condition.predicate match {
      case EqualTo(l, r) => Array(new Argument(l), new Argument(r))
      case other => throw new IllegalStateException(s"not an equality: ${other.sql}")
    }

    /** Side `side` of the equality on one event, as a hash key that outlives the row ([[Bound.key]]). */
    def operand(side: Int, event: InternalRow): AnyRef = Bound.key(sides(side)(event))

    /**
     * The condition as an order comparison (with Spark's coercions, both sides of one type), the ordering it compares
     * by, and whether it asks its left side to be the lesser.
     */
    private lazy val ordered: (BinaryComparison, Ordering[Any], Boolean) = {
      def of(c: BinaryComparison, less: Boolean) = (c, TypeUtils.getInterpretedOrdering(c.left.dataType), less)
      condition.predicate match {
        case c: LessThan => of(c, less = true)
        case c: LessThanOrEqual => of(c, less = true)
        case c: GreaterThan => of(c, less = false)
        case c: GreaterThanOrEqual => of(c, less = false)
        case other => throw new IllegalStateException(s"not an order comparison: ${other.sql}")
      }
    }

    /**
     * Per side of the order comparison, compiled when first asked for (only a side that one variable's events alone
     * make is): twice, so that two events' values are read side by side.
     */
    private val hardnessSides = new Array[(Argument, Argument)](2)

    /** [[io.sparkcer.engine.eval.EventReader.compareHardness]]: by the comparison's own ordering, NULL the hardest. */
    def compareHardness(side: Int, a: InternalRow, b: InternalRow): Int = {
      val (comparison, ordering, less) = ordered
      if (hardnessSides(side) == null) {
        val expression = if (side == 0) comparison.left else comparison.right
        hardnessSides(side) = (new Argument(expression), new Argument(expression))
      }
      val (x, y) = (hardnessSides(side)._1(a), hardnessSides(side)._2(b))
      if (x == null) { if (y == null) 0 else 1 }
      else if (y == null) -1
      else {
        val order = Integer.signum(ordering.compare(x, y))
        if (less == (side == 0)) order else -order
      }
    }

    /** Per slot, the ordering of its values (prev's argument, an aggregate's result), made when first asked for. */
    private val slotOrderings = new Array[Ordering[Any]](condition.slots.length)

    /** [[io.sparkcer.engine.eval.EventReader.compareSlotValues]]: by the ordering of the slot's type. */
    def compareSlotValues(slot: Int, a: Any, b: Any): Int = {
      if (slotOrderings(slot) == null)
        slotOrderings(slot) = TypeUtils.getInterpretedOrdering(condition.slots(slot).dataType)
      Integer.signum(slotOrderings(slot).compare(a, b))
    }

    def aggregation(slot: Int): Aggregation = condition.slots(slot) match {
      // Spark's count is exact and its state one Long: the engine's, without a buffer row per event.
      case c: Count => new Aggregation.Count(skipsNulls = c.children.head.nullable)
      case a: DeclarativeAggregate => new SparkAggregation(a, partitionIndex)
      case other => throw new IllegalStateException(s"prev(${toPrettySQL(other)}) is not an aggregate")
    }
  }

  object Bound {
    /**
     * A value of an equality's side as a key: equal under Spark's `=` iff `equals`, and independent of the row it
     * was read from. Strings are copied out of the row's bytes, binary wrapped to compare by content, structs and
     * arrays copied; -0.0 is 0.0, as Spark's joins normalize it (and `equals` already finds every NaN equal).
     */
    def key(value: Any): AnyRef = value match {
      case s: UTF8String => s.clone()
      case d: java.lang.Double if d.doubleValue == 0.0 => java.lang.Double.valueOf(0.0)
      case f: java.lang.Float if f.floatValue == 0.0f => java.lang.Float.valueOf(0.0f)
      case b: Array[Byte] => java.nio.ByteBuffer.wrap(b.clone())
      case r: InternalRow => r.copy()
      case a: ArrayData => a.copy()
      case other => other.asInstanceOf[AnyRef]
    }
  }
}
