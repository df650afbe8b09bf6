package io.sparkcer.spark

import java.sql.Timestamp

/** A stock tick of the streaming suites: a side (BUY or SELL), a stock, a row id, a price and an event time. */
final case class RandomTick(side: String, name: String, id: Long, price: Int, ts: Timestamp)

object RandomTicks {
  /**
   * `n` ticks of the stocks A, B and C in time order, 0 to 300 ms apart from 1 s on (some at the same time: the id
   * orders them), a third of them SELL, prices from 10 to 19.
   */
  def apply(n: Int, seed: Long): Seq[RandomTick] = {
    val random = new java.util.Random(seed)
    var t = 0L
    (1 to n).map { id =>
      t += random.nextInt(4) * 100
      val side = if (random.nextInt(3) == 0) "SELL" else "BUY"
      RandomTick(
        side, Seq("A", "B", "C")(random.nextInt(3)), id.toLong, 10 + random.nextInt(10), new Timestamp(1000 + t))
    }
  }
}
