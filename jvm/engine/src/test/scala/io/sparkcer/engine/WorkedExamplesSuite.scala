package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.oracle.{BruteForce, EngineHarness, Generators}
import io.sparkcer.engine.oracle.BruteForce.Row
import io.sparkcer.engine.oracle.Dsl._

/**
 * The worked examples of the CEL paper (digest-cel-and-pcea.md §A8), of the CORE paper (Figure 3) and of CORE's
 * own unit tests, with the outputs those sources state. Each example is checked three ways:
 *  - oracle:  the brute-force reference on the hand-built AST gives exactly the stated output (this validates
 *             the oracle itself against the papers' tables);
 *  - parser:  the CEQL text, parsed by `CeqlParser`, gives the same output under the oracle;
 *  - engine:  `LocalEngine` on the CEQL text gives the stated output, and conforms to the oracle.
 * Parser and engine tests are cancelled while those are still stubs.
 *
 * Positions are row indices. A complex event is written (start, end, D) with D the union of all bindings
 * (every atom of these patterns is under an AS, or the selection lists every marked variable).
 */
object WorkedExamplesSuite {
  /** A complex event: its interval and its data D, in global row indices. */
  final case class CE(start: Long, end: Long, data: Set[Long]) {
    override def toString: String = s"([$start,$end],${data.toSeq.sorted.mkString("{", ",", "}")})"
  }
  object CE {
    /** A complex event without negated reads: its interval is [min D, max D]. */
    def apply(data: Long*): CE = CE(data.min, data.max, data.toSet)
  }

  def ces(rows: Seq[Row]): Vector[CE] =
    rows.map(r => CE(r.start, r.end, r.bindings.flatten.toSet)).toVector.sortBy(_.toString)

  final case class Example(
      name: String,
      text: String,
      ast: Query,
      columns: IndexedSeq[String],
      rows: IndexedSeq[Array[Any]],
      expected: Seq[CE],
      /** Full rows, when the bindings per variable matter. */
      expectedRows: Option[Seq[Row]] = None,
      options: EngineOptions = EngineOptions())

}

class WorkedExamplesSuite extends AnyFunSuite {
  import WorkedExamplesSuite._

  private val examples = Vector.newBuilder[Example]
  private def example(e: Example): Unit = examples += e

  private def L(v: Long): java.lang.Long = java.lang.Long.valueOf(v)

  // ------------------------------------------------------------------------------------------------------
  // CEL paper, Figure 1 stream. `value` is tmp for T and hum for H: here two columns, the other one NULL.
  // ------------------------------------------------------------------------------------------------------

  private val sensorColumns = IndexedSeq("event_type", "id", "tmp", "hum", "ts")
  private val sensor: IndexedSeq[Array[Any]] = {
    val types = "HTHHTTTHH"
    val ids = Seq(2, 0, 0, 1, 1, 0, 1, 1, 0)
    val values = Seq(25, 45, 20, 25, 40, 42, 25, 70, 18)
    types.indices.map { i =>
      val t = types(i).toString
      Array[Any](t, L(ids(i).toLong), if (t == "T") L(values(i).toLong) else null,
        if (t == "H") L(values(i).toLong) else null, L(i.toLong))
    }
  }

  private val xyFilter =
    on("x")((col("tmp") > 40) && (col("id") === 0)) and on("y")((col("hum") <= 25) && (col("id") === 0))
  private val phi1 = (atom("T").as("x") seq atom("H").as("y")).filter(xyFilter)
  private val phi1Text = "(T AS x ; H AS y) FILTER x[tmp > 40 AND id = 0] AND y[hum <= 25 AND id = 0]"
  private val phi2 =
    ((atom("T").as("x") seq atom("H").as("y")) or (atom("H").as("y") seq atom("T").as("x"))).filter(xyFilter)
  private val phi2Text =
    "((T AS x ; H AS y) OR (H AS y ; T AS x)) FILTER x[tmp > 40 AND id = 0] AND y[hum <= 25 AND id = 0]"
  private val phi3 =
    (atom("H").as("x") seq atom("T").as("y").filter(on("y")(col("id") === 1)).plus seq atom("H").as("z"))
      .filter(on("x")((col("hum") < 30) && (col("id") === 1)) and on("z")((col("hum") > 60) && (col("id") === 1)))
  private val phi3Text =
    "(H AS x ; (T AS y FILTER y[id = 1])+ ; H AS z) FILTER x[hum < 30 AND id = 1] AND z[hum > 60 AND id = 1]"

  private def sensorExample(label: String, pattern: Cel, patternText: String, s: Strategy, expected: Seq[CE]): Unit = {
    val kw = if (s == Strategy.All) "" else s.keyword + " "
    example(
      Example(
        s"CEL paper: ${if (s == Strategy.All) "" else s.keyword + "("}$label${if (s == Strategy.All) "" else ")"}",
        s"SELECT $kw* FROM S WHERE $patternText ORDER BY ts",
        query(pattern, strategy = s),
        sensorColumns,
        sensor,
        expected
      ))
  }

  // φ1 = (T AS x ; H AS y) FILTER (x.tmp > 40 ∧ y.hum <= 25 ∧ x.id = 0 ∧ y.id = 0)
  sensorExample("φ1", phi1, phi1Text, Strategy.All, Seq(CE(1, 2), CE(1, 8), CE(5, 8)))
  sensorExample("φ1", phi1, phi1Text, Strategy.Strict, Seq(CE(1, 2)))
  sensorExample("φ1", phi1, phi1Text, Strategy.Next, Seq(CE(1, 2), CE(1, 8)))
  sensorExample("φ1", phi1, phi1Text, Strategy.Last, Seq(CE(1, 2), CE(5, 8)))
  sensorExample("φ1", phi1, phi1Text, Strategy.Max, Seq(CE(1, 2), CE(1, 8), CE(5, 8)))
  // φ2 = [(T AS x ; H AS y) OR (H AS y ; T AS x)] FILTER (same)
  sensorExample("φ2", phi2, phi2Text, Strategy.All, Seq(CE(1, 2), CE(1, 8), CE(5, 8), CE(2, 5)))
  sensorExample("φ2", phi2, phi2Text, Strategy.Strict, Seq(CE(1, 2)))
  sensorExample("φ2", phi2, phi2Text, Strategy.Next, Seq(CE(1, 2), CE(2, 5), CE(1, 8)))
  sensorExample("φ2", phi2, phi2Text, Strategy.Last, Seq(CE(1, 2), CE(2, 5), CE(5, 8)))
  sensorExample("φ2", phi2, phi2Text, Strategy.Max, Seq(CE(1, 2), CE(1, 8), CE(5, 8), CE(2, 5)))
  // φ3 = [H AS x ; (T AS y FILTER y.id = 1)+ ; H AS z] FILTER (x.hum < 30 ∧ z.hum > 60 ∧ x.id = z.id = 1)
  sensorExample("φ3", phi3, phi3Text, Strategy.All, Seq(CE(3, 4, 7), CE(3, 6, 7), CE(3, 4, 6, 7)))
  sensorExample("φ3", phi3, phi3Text, Strategy.Strict, Seq())
  sensorExample("φ3", phi3, phi3Text, Strategy.Next, Seq(CE(3, 4, 6, 7)))
  sensorExample("φ3", phi3, phi3Text, Strategy.Last, Seq(CE(3, 4, 6, 7)))
  sensorExample("φ3", phi3, phi3Text, Strategy.Max, Seq(CE(3, 4, 6, 7)))

  // ------------------------------------------------------------------------------------------------------
  // CEL paper, Table 1 queries on tiny streams, all five strategies (digest §A8).
  // ------------------------------------------------------------------------------------------------------

  private val typeColumns = IndexedSeq("event_type", "ts")
  private def typed(s: String): IndexedSeq[Array[Any]] = s.indices.map(i => Array[Any](s(i).toString, L(i.toLong)))

  private def tableQuery(label: String, pattern: Cel, text: String, stream: String,
      all: Seq[CE], next: Seq[CE], last: Seq[CE], max: Seq[CE], strict: Seq[CE]): Unit =
    Seq(
      Strategy.All -> all, Strategy.Next -> next, Strategy.Last -> last, Strategy.Max -> max, Strategy.Strict -> strict)
      .foreach { case (s, exp) =>
        example(
          Example(
            s"CEL paper Table 1: ${s.keyword} $label on $stream",
            s"SELECT ${s.keyword} * FROM S WHERE $text ORDER BY ts",
            query(pattern, strategy = s),
            typeColumns,
            typed(stream),
            exp
          ))
      }

  private val q1 = atom("A").as("x") seq atom("B").as("y") seq atom("C").as("z")
  tableQuery(
    "Q1",
    q1,
    "A AS x ; B AS y ; C AS z",
    "ABABC",
    all = Seq(CE(0, 1, 4), CE(0, 3, 4), CE(2, 3, 4)),
    next = Seq(CE(0, 1, 4)),
    last = Seq(CE(2, 3, 4)),
    max = Seq(CE(0, 1, 4), CE(0, 3, 4), CE(2, 3, 4)),
    strict = Seq(CE(2, 3, 4))
  )

  private val q2 = atom("A").as("x") seq atom("B").as("y") seq atom("C").as("z") seq atom("D").as("w")
  tableQuery(
    "Q2",
    q2,
    "A AS x ; B AS y ; C AS z ; D AS w",
    "ABCABD",
    all = Seq(CE(0, 1, 2, 5)),
    next = Seq(CE(0, 1, 2, 5)),
    last = Seq(CE(0, 1, 2, 5)),
    max = Seq(CE(0, 1, 2, 5)),
    strict = Seq()
  )

  private val q3 = ((atom("A").as("x") or atom("B").as("y")) or atom("C").as("z")) seq atom("D").as("w")
  tableQuery(
    "Q3",
    q3,
    "((A AS x OR B AS y) OR C AS z) ; D AS w",
    "ABCD",
    all = Seq(CE(0, 3), CE(1, 3), CE(2, 3)),
    next = Seq(CE(0, 3)),
    last = Seq(CE(2, 3)),
    max = Seq(CE(0, 3), CE(1, 3), CE(2, 3)),
    strict = Seq(CE(2, 3))
  )

  private val q4 = atom("A").as("x").plus seq atom("B").as("y")
  tableQuery(
    "Q4",
    q4,
    "(A AS x)+ ; B AS y",
    "AAB",
    all = Seq(CE(0, 2), CE(1, 2), CE(0, 1, 2)),
    next = Seq(CE(0, 1, 2)),
    last = Seq(CE(0, 1, 2)),
    max = Seq(CE(0, 1, 2)),
    strict = Seq(CE(1, 2), CE(0, 1, 2))
  )

  private val q5 = atom("A").as("x").plus seq atom("B").as("y").plus seq atom("C").as("z")
  private val q5All = for {
    a <- Seq(Set(0L), Set(1L), Set(0L, 1L))
    b <- Seq(Set(2L), Set(3L), Set(2L, 3L))
  } yield { val d = a ++ b + 4L; CE(d.min, 4, d) }
  tableQuery(
    "Q5",
    q5,
    "(A AS x)+ ; (B AS y)+ ; C AS z",
    "AABBC",
    all = q5All,
    next = Seq(CE(0, 1, 2, 3, 4)),
    last = Seq(CE(0, 1, 2, 3, 4)),
    max = Seq(CE(0, 1, 2, 3, 4)),
    strict = Seq(CE(1, 2, 3, 4), CE(0, 1, 2, 3, 4))
  )

  private val q6 = (atom("A").as("x").plus seq atom("B").as("y")).plus seq atom("C").as("z")
  tableQuery(
    "Q6",
    q6,
    "((A AS x)+ ; B AS y)+ ; C AS z",
    "ABABC",
    all = Seq(CE(0, 1, 4), CE(0, 3, 4), CE(2, 3, 4), CE(0, 2, 3, 4), CE(0, 1, 2, 3, 4)),
    next = Seq(CE(0, 1, 2, 3, 4)),
    last = Seq(CE(0, 1, 2, 3, 4)),
    max = Seq(CE(0, 1, 2, 3, 4)),
    strict = Seq(CE(2, 3, 4), CE(0, 1, 2, 3, 4))
  )

  // ------------------------------------------------------------------------------------------------------
  // CORE paper, Figure 1 query Q1 on the Figure 3 stream, and CORE's own unit tests on the same trace.
  // ------------------------------------------------------------------------------------------------------

  private val stockColumns = IndexedSeq("event_type", "name", "price", "ts")
  private def stock(events: (String, String, Int)*): IndexedSeq[Array[Any]] =
    events.zipWithIndex.map { case ((t, n, p), i) => Array[Any](t, n, L(p.toLong), L(i.toLong)) }.toIndexedSeq

  private val figure3 = stock(("SELL", "MSFT", 101), ("SELL", "MSFT", 102), ("SELL", "INTL", 80), ("BUY", "INTL", 80),
    ("SELL", "AMZN", 1900), ("SELL", "INTL", 81), ("SELL", "AMZN", 1920))

  private val coreQ1 = (atom("SELL").as("msft") seq atom("SELL").as("intel") seq atom("SELL").as("amzn"))
    .filter(
      on("msft")(col("name") === "MSFT") and on("msft")(col("price") > 100) and on("intel")(col("name") === "INTL") and
        on("amzn")(col("name") === "AMZN") and on("amzn")(col("price") < 2000))
  private val coreQ1Text =
    """SELL AS msft ; SELL AS intel ; SELL AS amzn
      |FILTER msft[name = 'MSFT'] AND msft[price > 100]
      |   AND intel[name = 'INTL']
      |   AND amzn[name = 'AMZN'] AND amzn[price < 2000]""".stripMargin

  private def r3(start: Long, msft: Long, intel: Long, amzn: Long): Row =
    Row(Vector.empty, start, amzn, Vector(Vector(msft), Vector(intel), Vector(amzn)))

  example(
    Example(
      "CORE paper Figure 3: Q1 (SELL AS msft ; SELL AS intel ; SELL AS amzn)",
      s"SELECT * FROM Stock\nWHERE $coreQ1Text\nORDER BY ts",
      query(coreQ1, stream = "Stock"),
      stockColumns,
      figure3,
      Seq(CE(0, 2, 4), CE(1, 2, 4), CE(0, 2, 6), CE(0, 5, 6), CE(1, 2, 6), CE(1, 5, 6)),
      Some(Seq(r3(0, 0, 2, 4), r3(1, 1, 2, 4), r3(0, 0, 2, 6), r3(0, 0, 5, 6), r3(1, 1, 2, 6), r3(1, 1, 5, 6)))
    ))

  // CORE's "WITHIN 5 EVENTS" keeps end - start <= 5; our windows are strict, so the same cut is WITHIN 6 EVENTS.
  example(
    Example(
      "CORE test: Q1 WITHIN 6 EVENTS",
      s"SELECT * FROM Stock\nWHERE $coreQ1Text\nORDER BY ts\nWITHIN 6 EVENTS",
      query(coreQ1, stream = "Stock", within = Some(events(6))),
      stockColumns,
      figure3,
      Seq(CE(0, 2, 4), CE(1, 2, 4), CE(1, 2, 6), CE(1, 5, 6))
    ))

  example(
    Example(
      "CORE test: Q1 CONSUME BY ANY drops what NONE reports at 6",
      s"SELECT * FROM Stock\nWHERE $coreQ1Text\nORDER BY ts\nCONSUME BY ANY",
      query(coreQ1, stream = "Stock", consumeBy = Consumption.Any),
      stockColumns,
      figure3,
      Seq(CE(0, 2, 4), CE(1, 2, 4))
    ))

  private val contiguousStream = stock(
    ("SELL", "MSFT", 101),
    ("SELL", "MSFT", 102),
    ("SELL", "INTL", 80),
    ("BUY", "INTL", 80),
    ("SELL", "AMZN", 1900),
    ("SELL", "MSFT", 101),
    ("SELL", "INTL", 80),
    ("SELL", "AMZN", 1900),
    ("SELL", "INTL", 81),
    ("SELL", "AMZN", 1920)
  )
  private val contiguousQ = (atom("SELL").as("msft") next atom("SELL").as("intel") next atom("SELL").as("amzn"))
    .filter(
      on("msft")(col("name") === "MSFT") and on("msft")(col("price") > 100) and on("intel")(col("name") === "INTL") and
        on("amzn")(col("name") === "AMZN") and on("amzn")(col("price") < 2000))
  example(
    Example(
      "CORE test: contiguous SELL AS msft : SELL AS intel : SELL AS amzn",
      """SELECT * FROM Stock
        |WHERE SELL AS msft : SELL AS intel : SELL AS amzn
        |FILTER msft[name = 'MSFT'] AND msft[price > 100] AND intel[name = 'INTL']
        |   AND amzn[name = 'AMZN'] AND amzn[price < 2000]
        |ORDER BY ts""".stripMargin,
      query(contiguousQ, stream = "Stock"),
      stockColumns,
      contiguousStream,
      Seq(CE(5, 6, 7)),
      Some(Seq(r3(5, 5, 6, 7)))
    ))

  private val names3 =
    on("msft")(col("name") === "MSFT") and on("intel")(col("name") === "INTL") and on("amzn")(col("name") === "AMZN")

  // (SELL):+ AS msft ; (SELL OR BUY) AS intel ; SELL AS amzn — CORE expects 6 matches at 4 and 10 at 7.
  private val mixStream = stock(
    ("SELL", "MSFT", 101),
    ("SELL", "MSFT", 102),
    ("SELL", "INTL", 80),
    ("BUY", "INTL", 80),
    ("SELL", "AMZN", 1900),
    ("SELL", "MSFT", 105),
    ("SELL", "INTL", 85),
    ("SELL", "AMZN", 1901)
  )
  private val mixQ = (atom("SELL").cplus.as("msft") seq (atom("SELL") or atom("BUY")).as("intel") seq atom("SELL").as(
    "amzn")).filter(names3)
  private def rm(msft: Seq[Long], intel: Long, amzn: Long): Row =
    Row(Vector.empty, msft.min, amzn, Vector(msft.toVector, Vector(intel), Vector(amzn)))
  private val mixRows: Seq[Row] = {
    val early = for (m <- Seq(Seq(0L), Seq(1L), Seq(0L, 1L)); i <- Seq(2L, 3L)) yield rm(m, i, 4)
    val late =
      (for (m <- Seq(Seq(0L), Seq(1L), Seq(0L, 1L)); i <- Seq(2L, 3L, 6L)) yield rm(m, i, 7)) :+ rm(Seq(5L), 6, 7)
    early ++ late
  }
  example(
    Example(
      "CORE test: (SELL):+ AS msft ; (SELL OR BUY) AS intel ; SELL AS amzn",
      """SELECT * FROM Stock
        |WHERE (SELL):+ AS msft ; (SELL OR BUY) AS intel ; SELL AS amzn
        |FILTER msft[name = 'MSFT'] AND intel[name = 'INTL'] AND amzn[name = 'AMZN']
        |ORDER BY ts""".stripMargin,
      query(mixQ, stream = "Stock"),
      stockColumns,
      mixStream,
      mixRows.map(r => CE(r.start, r.end, r.bindings.flatten.toSet)),
      Some(mixRows)
    ))

  private val mix2Q = (atom("SELL").cplus.as("msft") next (atom("SELL") or atom("BUY")).as("intel") seq atom("SELL").as(
    "amzn")).filter(names3)
  example(
    Example(
      "CORE test: (SELL):+ AS msft : (SELL OR BUY) AS intel ; SELL AS amzn",
      """SELECT * FROM Stock
        |WHERE (SELL):+ AS msft : (SELL OR BUY) AS intel ; SELL AS amzn
        |FILTER msft[name = 'MSFT'] AND intel[name = 'INTL'] AND amzn[name = 'AMZN']
        |ORDER BY ts""".stripMargin,
      query(mix2Q, stream = "Stock"),
      stockColumns,
      stock(("SELL", "MSFT", 101), ("SELL", "MSFT", 102), ("BUY", "INTL", 80), ("SELL", "INTL", 80),
        ("SELL", "AMZN", 1900)),
      Seq(CE(1, 2, 4), CE(0, 1, 2, 4)),
      Some(Seq(rm(Seq(1L), 2, 4), rm(Seq(0L, 1L), 2, 4)))
    ))

  example(
    Example(
      "CORE test: (SELL)+ : BUY : SELL",
      "SELECT * FROM Stock WHERE (SELL)+ : BUY : SELL ORDER BY ts",
      query(atom("SELL").plus next atom("BUY") next atom("SELL"), stream = "Stock"),
      stockColumns,
      stock(
        ("SELL", "MSFT", 101), ("BUY", "INTL", 80), ("SELL", "MSFT", 102), ("BUY", "INTL", 80), ("SELL", "AMZN", 1900)),
      Seq(CE(0, 1, 2), CE(2, 3, 4), CE(0, 2, 3, 4))
    ))

  // NOT: CORE's negated atom reads one event (the match starts there) and marks nothing.
  example(
    Example(
      "CORE test: NOT(SELL) : BUY : SELL",
      "SELECT * FROM Stock WHERE NOT(SELL) : BUY : SELL ORDER BY ts",
      query(not("SELL") next atom("BUY") next atom("SELL"), stream = "Stock"),
      stockColumns,
      stock(("BUY", "MSFT", 101), ("SELL", "INTL", 1000), ("BUY", "AMZN", 200), ("SELL", "AMZN", 1000),
        ("BUY", "INTL", 300), ("BUY", "MSFT", 1000), ("SELL", "AMZN", 30)),
      Seq(CE(4, 6, Set(5L, 6L)))
    ))

  example(
    Example(
      "CORE test: NOT(SELL) ; BUY ; SELL",
      "SELECT * FROM Stock WHERE NOT(SELL) ; BUY ; SELL ORDER BY ts",
      query(not("SELL") seq atom("BUY") seq atom("SELL"), stream = "Stock"),
      stockColumns,
      stock(("SELL", "MSFT", 101), ("BUY", "MSFT", 10), ("BUY", "AMZN", 1010), ("SELL", "INTL", 200)),
      Seq(CE(1, 3, Set(2L, 3L)))
    ))

  example(
    Example(
      "CORE test: BUY ; NOT(SELL) ; BUY ; NOT(BUY) ; SELL",
      "SELECT * FROM Stock WHERE BUY ; NOT(SELL) ; BUY ; NOT(BUY) ; SELL ORDER BY ts",
      query(atom("BUY") seq not("SELL") seq atom("BUY") seq not("BUY") seq atom("SELL"), stream = "Stock"),
      stockColumns,
      stock(
        ("BUY", "MSFT", 101), ("BUY", "AMZN", 10), ("BUY", "INTL", 200), ("SELL", "MSFT", 1000), ("SELL", "INTL", 212)),
      Seq(CE(0, 4, Set(0L, 2L, 4L)))
    ))

  private val notMsft = (not("SELL") seq atom("SELL").as("msft") seq atom("SELL").as("intel") seq atom("BUY").as(
    "amzn"))
    .filter(
      on("msft")(col("name") === "MSFT") and on("msft")(col("price") > 100) and on("intel")(col("name") === "INTL") and
        on("amzn")(col("name") === "AMZN") and on("amzn")(col("price") < 2000))
  private val notMsftText =
    """NOT(SELL) ; SELL AS msft ; SELL AS intel ; BUY AS amzn
      |FILTER msft[name = 'MSFT'] AND msft[price > 100] AND intel[name = 'INTL']
      |   AND amzn[name = 'AMZN'] AND amzn[price < 2000]""".stripMargin
  private val notMsftStream = stock(("BUY", "AMZN", 1000), ("SELL", "MSFT", 20), ("BUY", "MSFT", 900),
    ("SELL", "MSFT", 101), ("SELL", "INTL", 100), ("BUY", "AMZN", 1000))
  // Two valuations with the same D {3,4,5} and different starts (0 and 2): distinct rows.
  example(
    Example(
      "CORE test: NOT(SELL) ; SELL AS msft ; SELL AS intel ; BUY AS amzn",
      s"SELECT * FROM Stock\nWHERE $notMsftText\nORDER BY ts",
      query(notMsft, stream = "Stock"),
      stockColumns,
      notMsftStream,
      Seq(CE(0, 5, Set(3L, 4L, 5L)), CE(2, 5, Set(3L, 4L, 5L)))
    ))

  // ------------------------------------------------------------------------------------------------------
  // CONSUME BY on SELL AS a ; SELL AS b ; SELL AS c.
  // ------------------------------------------------------------------------------------------------------

  private val abc = atom("SELL").as("a") seq atom("SELL").as("b") seq atom("SELL").as("c")
  private val sevenSells = stock(Seq.fill(7)(("SELL", "X", 1)): _*)
  private def triples(upTo: Long): Seq[CE] =
    for (a <- 0L to upTo; b <- a + 1 to upTo; c <- b + 1 to upTo) yield CE(a, b, c)

  example(
    Example(
      "CONSUME BY NONE: SELL AS a ; SELL AS b ; SELL AS c on 7 SELLs",
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c ORDER BY ts",
      query(abc),
      stockColumns,
      sevenSells,
      triples(6)
    ))
  example(
    Example(
      "CONSUME BY ANY: SELL AS a ; SELL AS b ; SELL AS c on 7 SELLs",
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c ORDER BY ts CONSUME BY ANY",
      query(abc, consumeBy = Consumption.Any),
      stockColumns,
      sevenSells,
      Seq(CE(0, 1, 2), CE(3, 4, 5))
    ))

  private val partColumns = IndexedSeq("event_type", "part", "ts")
  private val alternating: IndexedSeq[Array[Any]] = (0 until 8).map(i => Array[Any]("SELL", L(i % 2L), L(i.toLong)))
  private def partRow(key: Long, a: Long, b: Long, c: Long): Row =
    Row(Vector(L(key)), a, c, Vector(Vector(a), Vector(b), Vector(c)))
  example(
    Example(
      "CONSUME BY NONE with PARTITION BY part",
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c PARTITION BY part ORDER BY ts",
      query(abc, partitionBy = Seq(Seq("part"))),
      partColumns,
      alternating,
      Seq(CE(0, 2, 4), CE(1, 3, 5), CE(0, 2, 6), CE(0, 4, 6), CE(2, 4, 6), CE(1, 3, 7), CE(1, 5, 7), CE(3, 5, 7)),
      Some(Seq(partRow(0, 0, 2, 4), partRow(1, 1, 3, 5), partRow(0, 0, 2, 6), partRow(0, 0, 4, 6), partRow(0, 2, 4, 6),
          partRow(1, 1, 3, 7), partRow(1, 1, 5, 7), partRow(1, 3, 5, 7)))
    ))
  example(
    Example(
      "CONSUME BY PARTITION with PARTITION BY part",
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c PARTITION BY part ORDER BY ts CONSUME BY PARTITION",
      query(abc, partitionBy = Seq(Seq("part")), consumeBy = Consumption.Partition),
      partColumns,
      alternating,
      Seq(CE(0, 2, 4), CE(1, 3, 5)),
      Some(Seq(partRow(0, 0, 2, 4), partRow(1, 1, 3, 5)))
    ))
  example(
    Example(
      "CONSUME BY ANY with PARTITION BY part",
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c PARTITION BY part ORDER BY ts CONSUME BY ANY",
      query(abc, partitionBy = Seq(Seq("part")), consumeBy = Consumption.Any),
      partColumns,
      alternating,
      Seq(CE(0, 2, 4)),
      Some(Seq(partRow(0, 0, 2, 4)))
    ))

  // ------------------------------------------------------------------------------------------------------
  // The checks.
  // ------------------------------------------------------------------------------------------------------

  private def describe(e: Example, got: Seq[Row]): String =
    s"""query:
      |${e.text}
      |stream:
      |${Generators.showStream(e.rows, e.columns)}
      |expected: ${e.expected.sortBy(_.toString).mkString(", ")}
      |got:      ${ces(got).mkString(", ")}
      |rows:     ${got.mkString("; ")}""".stripMargin

  private def assertOutput(e: Example, got: Seq[Row]): Unit = {
    assert(ces(got) == e.expected.toVector.sortBy(_.toString), describe(e, got))
    e.expectedRows.foreach { rows =>
      assert(got.sortBy(_.toString) == rows.sortBy(_.toString), describe(e, got))
    }
  }

  for (e <- examples.result()) {
    test(s"oracle: ${e.name}") {
      val oracle = new BruteForce.Oracle(e.ast, e.columns, e.options)
      assertOutput(e, oracle.run(e.rows))
    }
    test(s"parser: ${e.name}") {
      val parse = EngineHarness.parser.getOrElse(cancel("CeqlParser.parse is not implemented yet"))
      val parsed = parse(e.text)
      val oracle = new BruteForce.Oracle(parsed, e.columns, e.options)
      assertOutput(e, oracle.run(e.rows))
      assert(BruteForce.outputVariables(parsed) == BruteForce.outputVariables(e.ast))
    }
    test(s"engine: ${e.name}") {
      if (!EngineHarness.engineAvailable) cancel("LocalEngine is not implemented yet")
      val (vars, got) = EngineHarness.run(e.text, e.columns, e.rows, e.options)
      assertOutput(e, got)
      assert(vars == BruteForce.outputVariables(e.ast), s"output variables of\n${e.text}")
      val oracle = new BruteForce.Oracle(e.ast, e.columns, e.options)
      oracle.check(e.rows, got).foreach(problem => fail(s"$problem\n${describe(e, got)}"))
    }
  }

  // Strategies where the engine chooses: the oracle states what is acceptable, the engine must conform.
  private val choiceExamples: Seq[(String, Query, String, IndexedSeq[String], IndexedSeq[Array[Any]])] = Seq(
    ("ANY Q1 on ABABC", query(q1, strategy = Strategy.Any),
      "SELECT ANY * FROM S WHERE A AS x ; B AS y ; C AS z ORDER BY ts",
      typeColumns, typed("ABABC")),
    ("ANY Q5 on AABBC", query(q5, strategy = Strategy.Any),
      "SELECT ANY * FROM S WHERE (A AS x)+ ; (B AS y)+ ; C AS z ORDER BY ts",
      typeColumns, typed("AABBC")),
    ("LIMIT 1 on Figure 3", query(coreQ1, stream = "Stock", limit = Some(1)),
      s"SELECT * FROM Stock\nWHERE $coreQ1Text\nORDER BY ts\nLIMIT 1",
      stockColumns, figure3),
    ("LIMIT 2 on SELL AS a ; SELL AS b ; SELL AS c", query(abc, limit = Some(2)),
      "SELECT * FROM S WHERE SELL AS a ; SELL AS b ; SELL AS c ORDER BY ts LIMIT 2", stockColumns, sevenSells),
    ("NEXT with tied valuations (NOT(SELL) ; SELL AS msft ; ...)",
      query(notMsft, strategy = Strategy.Next, stream = "Stock"),
      s"SELECT NEXT * FROM Stock\nWHERE $notMsftText\nORDER BY ts", stockColumns, notMsftStream)
  )

  for ((label, ast, text, columns, rows) <- choiceExamples) {
    test(s"oracle: $label") {
      val exps = new BruteForce.Oracle(ast, columns).expectations(rows).filter(_.maxCount > 0)
      assert(exps.nonEmpty)
      exps.foreach(x => assert(x.minCount == x.maxCount && x.maxCount <= x.candidates.size, x.toString))
    }
    test(s"engine: $label") {
      if (!EngineHarness.engineAvailable) cancel("LocalEngine is not implemented yet")
      val (_, got) = EngineHarness.run(text, columns, rows)
      new BruteForce.Oracle(ast, columns).check(
        rows, got).foreach(p => fail(s"$p\nquery:\n$text\nrows: ${got.mkString("; ")}"))
    }
  }

  test("oracle: NEXT tie is reported as exactly one of the tied valuations") {
    val exps = new BruteForce.Oracle(query(notMsft, strategy = Strategy.Next, stream = "Stock"), stockColumns)
      .expectations(notMsftStream)
    val at5 = exps(5)
    assert(at5.minCount == 1 && at5.maxCount == 1 && at5.candidates.map(_.start) == Set(0L, 2L), at5.toString)
  }
}
