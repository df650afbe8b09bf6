package io.sparkcer.bench

/**
 * The synthetic stream of bench/sparkbench/equality.py, for the engine alone: `events` account events, one per
 * millisecond (`ts` is the event's index), of five types (40 % transfers); a transfer moves `amount` from `acct` to
 * `peer`, both uniform among `accounts`. Deterministic: every column is a hash of the index (not the same hash as
 * Spark's xxhash64, so not the same rows; the same distribution).
 */
object AccountStream {
  val Columns: IndexedSeq[String] = IndexedSeq("event_type", "id", "acct", "peer", "amount", "ts")
  private val Types =
    IndexedSeq.fill(8)("TRANSFER") ++ IndexedSeq.fill(3)("DEPOSIT") ++ IndexedSeq.fill(3)("WITHDRAW") ++
      IndexedSeq.fill(3)("LOGIN") ++ IndexedSeq.fill(3)("LOGOUT")

  def rows(events: Int, accounts: Int): IndexedSeq[Array[Any]] = {
    val boxed = Array.tabulate[java.lang.Long](accounts)(Long.box(_))
    IndexedSeq.tabulate(events) { i =>
      def hash(column: Int): Long = java.lang.Long.remainderUnsigned(mix(i.toLong * 8 + column), Long.MaxValue)
      val id = Long.box(i.toLong)
      Array[Any](Types((hash(1) % Types.length).toInt), id, boxed((hash(2) % accounts).toInt),
        boxed((hash(3) % accounts).toInt), Double.box((hash(4) % 100000) / 100.0), id)
    }
  }

  /** SplitMix64's finalizer. */
  private def mix(x: Long): Long = {
    var z = x + 0x9e3779b97f4a7c15L
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)
  }

  /** How a chain ends. */
  sealed abstract class End(val atom: String, val key: String)
  /** A withdrawal from the account last paid: the chain matches. */
  case object Withdrawal extends End("WITHDRAW", "acct")
  /** A closing, which no event is: nothing can complete a run. */
  case object Closing extends End("CLOSE", "acct")
  /**
   * A withdrawal whose id is the account last paid: withdrawals come (every seventh event), but ids pass the
   * accounts' range within the first 1 % of the stream, so the runs are built and nothing matches after that.
   */
  case object Stranger extends End("WITHDRAW", "id")

  /** Chain of length L (equality.py's chainL): L - 1 transfers along the accounts they pay, then its end. */
  def chain(length: Int, windowMs: Long, end: End = Withdrawal): String = {
    val hops = (1 until length).map(i => s"TRANSFER AS t$i")
    val equalities =
      (1 until length - 1).map(i => s"t$i.peer = t${i + 1}.acct") :+ s"t${length - 1}.peer = w.${end.key}"
    s"SELECT * FROM S WHERE ${(hops :+ s"${end.atom} AS w").mkString(" ; ")} FILTER ${equalities.mkString(" AND ")} " +
      s"WITHIN $windowMs [ts] ORDER BY ts"
  }
}
