package io.sparkcer.engine

import java.io.{
  ByteArrayInputStream, ByteArrayOutputStream, DataInput, DataOutput, ObjectInputStream, ObjectOutputStream
}

import io.sparkcer.engine.analysis.{Equality, OrderComparison}
import io.sparkcer.engine.ceql.{Condition, SlotFunction}
import io.sparkcer.engine.eval.{Aggregation, EventReader}
import io.sparkcer.engine.expr.{Expr, ExprInterpreter, ExprParser, Values}
import io.sparkcer.engine.syntax.{Name, PatternException, SqlFragment}

/**
 * The engine's own evaluation of conditions relating events (for [[LocalEngine]]: the runner and the tests; Spark
 * evaluates them with its own expressions): each condition is read from its Spark text by [[ExprParser]] and
 * compiled by [[ExprInterpreter]] over one row that lays out the events of its variables side by side, then its
 * slots.
 *
 * @param columns the input's columns; `b.price` reads column `price` of the event bound to b
 */
final class ConditionInterpreter(conditions: IndexedSeq[Condition], columns: IndexedSeq[String], query: String) {
  private val width = columns.length

  private def column(name: Name): Int = {
    val i = columns.indexWhere(_.equalsIgnoreCase(name.value))
    if (i < 0) throw new PatternException(s"unknown column '${name.value}'; the columns are: ${columns.mkString(", ")}",
      name.pos, query, name.value.length)
    i
  }

  /** Reads a condition's (or an argument's) Spark text, with errors placed in the query. */
  private def compile(p: SqlFragment, resolve: Expr.Reference => Int): ExprInterpreter.Compiled =
    p.readIn(query)(ExprInterpreter.compile(ExprParser.parse(p.sparkSql), resolve, p.sparkSql))

  private val compiled: IndexedSeq[ExprInterpreter.Compiled] = conditions.map { c =>
    val variables = c.variables
    val slots = c.slots.map(_.name.stripPrefix("`").stripSuffix("`"))
    compile(
      c.predicate,
      {
        case Expr.Attribute(v, name) if variables.contains(v.value) => variables.indexOf(v.value) * width + column(name)
        case Expr.Column(name) if slots.contains(name.value) => variables.length * width + slots.indexOf(name.value)
        case r => throw new PatternException(
            s"'${r.column.value}' needs the variable whose event it reads, e.g. " +
              s"${variables.headOption.getOrElse("b")}.${r.column.value}",
            r.pos,
            c.predicate.sparkSql
          )
      }
    )
  }

  private val arguments: IndexedSeq[Seq[ExprInterpreter.Compiled]] = conditions.map(
    _.slots.map { s =>
      s.argument.map(a =>
        compile(
          a,
          {
            case Expr.Attribute(v, name) if v.value == s.variable.value => column(name)
            case r => throw new PatternException(s"expected an attribute of ${s.variable.value} here, e.g. " +
                  s"${s.variable.value}.${r.column.value}", r.pos, a.sparkSql)
          }
        )).orNull
    })

  /**
   * Per condition that is an order comparison (slots included), each side that reads one event alone compiled over
   * its row (a side that reads a slot is never compared: None), and the comparison.
   */
  private lazy val orderSides: IndexedSeq[Option[(Seq[Option[ExprInterpreter.Compiled]], OrderComparison)]] =
    conditions.map(c =>
      OrderComparison.withSlots(c).map { o =>
        val sides = Seq(o.left, o.right).map(e =>
          try Some(
              ExprInterpreter.compile(
                e,
                {
                  case Expr.Attribute(_, name) => column(name)
                  case r =>
                    throw new PatternException(s"${c.text} reads ${r.column.value} outside an event", r.pos, c.text)
                },
                c.predicate.sparkSql
              ))
          catch { case _: PatternException => None })
        (sides, o)
      })

  /** [[io.sparkcer.engine.eval.EventReader.compareHardness]] on two events' rows, by the values' own order. */
  def compareHardness(c: Int, side: Int, a: Array[Any], b: Array[Any]): Int = orderSides(c) match {
    case Some((sides, comparison)) =>
      val read =
        sides(side).getOrElse(throw new IllegalStateException(s"${conditions(c).text}: side $side reads a slot"))
      val (x, y) = (read(a), read(b))
      if (x == null) { if (y == null) 0 else 1 }
      else if (y == null) -1
      else {
        val order = Values.compare(x, y)
        if (order == Values.Incomparable) EventReader.Unordered
        else if (comparison.largerIsHarder(side)) order else -order
      }
    case None => throw new IllegalStateException(s"${conditions(c).text} is not an order comparison")
  }

  /** [[io.sparkcer.engine.eval.EventReader.compareSlotValues]]: by the values' own order. */
  def compareSlotValues(a: Any, b: Any): Int = {
    val order = Values.compare(a, b)
    if (order == Values.Incomparable) EventReader.Unordered else Integer.signum(order)
  }

  /** Per condition that is an equality `a.x = b.y`, the column each side reads (for PCEA's keys). */
  private lazy val operands: IndexedSeq[Option[Seq[Int]]] =
    conditions.map(c => Equality.of(c).map(_.sides.map(s => column(Name(s.attribute, c.pos)))))

  /** Side `side` of equality `c` on one event's row, as a key ([[Values.key]]). */
  def operand(c: Int, side: Int, row: Array[Any]): AnyRef = operands(c) match {
    case Some(read) => Values.key(row(read(side)))
    case None => throw new IllegalStateException(s"${conditions(c).text} is not an equality")
  }

  /** Whether condition `c` is TRUE for the rows of its variables' events and its slots' values. */
  def holds(c: Int, rows: Array[Array[Any]], slots: Array[Any]): Boolean = {
    val row = new Array[Any](rows.length * width + slots.length)
    var v = 0
    while (v < rows.length) { System.arraycopy(rows(v), 0, row, v * width, width); v += 1 }
    System.arraycopy(slots, 0, row, rows.length * width, slots.length)
    compiled(c)(row) == java.lang.Boolean.TRUE
  }

  def argument(c: Int, slot: Int, row: Array[Any]): Any = {
    val f = arguments(c)(slot)
    if (f == null) null else f(row)
  }

  def aggregation(c: Int, slot: Int): Aggregation = {
    val s = conditions(c).slots(slot)
    ConditionInterpreter.aggregation(s.function, counted = s.argument.isDefined)
  }
}

object ConditionInterpreter {
  /**
   * SQL's aggregates over the engine's values: NULL arguments are skipped; `counted`: count has an argument
   * (`count(b.price)` counts the events whose price is not NULL, `count(b)` every event).
   */
  def aggregation(function: SlotFunction, counted: Boolean): Aggregation = function match {
    case SlotFunction.Count => new Aggregation.Count(skipsNulls = counted)
    case SlotFunction.Sum => Fold[Any](null, (s, v) => if (v == null) s else if (s == null) v else add(s, v), identity)
    case SlotFunction.Avg => Fold[(Double, Long)]((0.0, 0L),
        (s, v) => Values.toDouble(v).fold(s)(d => (s._1 + d, s._2 + 1)), s => if (s._2 == 0) null else s._1 / s._2)
    case SlotFunction.Min =>
      Fold[Any](null, (m, v) => if (v == null || (m != null && Values.compare(m, v) <= 0)) m else v, identity)
    case SlotFunction.Max =>
      Fold[Any](null, (m, v) => if (v == null || (m != null && Values.compare(m, v) >= 0)) m else v, identity)
    case SlotFunction.First => Fold[Option[Any]](None, (f, v) => if (f.isDefined) f else Some(v), _.orNull)
    case SlotFunction.Last => Fold[Option[Any]](None, (_, v) => Some(v), _.orNull)
    case SlotFunction.Prev => throw new IllegalArgumentException("prev is not an aggregate")
  }

  private def add(a: Any, b: Any): Any = (a, b) match {
    case (x: java.lang.Long, y: java.lang.Long) => java.lang.Long.valueOf(x + y)
    case _ => (Values.toDouble(a), Values.toDouble(b)) match {
        case (Some(x), Some(y)) => java.lang.Double.valueOf(x + y)
        case _ => null
      }
  }

  /** A fold whose state is boxed in [[State]], so that states compare by value. */
  private final case class Fold[S](zeroValue: S, step: (S, Any) => S, finish: S => Any) extends Aggregation {
    def zero: AnyRef = State(zeroValue)
    def update(state: AnyRef, value: Any): AnyRef = State(step(state.asInstanceOf[State].value.asInstanceOf[S], value))
    def result(state: AnyRef): Any = finish(state.asInstanceOf[State].value.asInstanceOf[S])
    def write(state: AnyRef, out: DataOutput): Unit = {
      val bytes = new ByteArrayOutputStream()
      val objects = new ObjectOutputStream(bytes)
      objects.writeObject(state.asInstanceOf[State].value)
      objects.close()
      out.writeInt(bytes.size)
      out.write(bytes.toByteArray)
    }
    def read(in: DataInput): AnyRef = {
      val bytes = new Array[Byte](in.readInt())
      in.readFully(bytes)
      State(new ObjectInputStream(new ByteArrayInputStream(bytes)).readObject())
    }
  }

  private final case class State(value: Any)
}
