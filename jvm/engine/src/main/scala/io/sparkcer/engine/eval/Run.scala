package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/**
 * The evaluation state of one partition: its partial matches, updated event by event. One implementation per way of
 * evaluating ([[io.sparkcer.engine.plan.Evaluation]]):
 *  - [[io.sparkcer.engine.tecs.CeaRun]]: CORE's Algorithm 1 on the subset automaton, or on CEL's for MAX;
 *  - [[io.sparkcer.engine.priority.PriorityRun]]: NEXT and LAST, the NFA's runs in priority order (CEL);
 *  - [[io.sparkcer.engine.rma.RegisterRun]]: conditions relating events, with registers (RMA);
 *  - [[io.sparkcer.engine.rma.RankedRegisterRun]]: NEXT and LAST with registers;
 *  - [[io.sparkcer.engine.rma.MaximalRegisterRun]]: MAX with registers;
 *  - [[io.sparkcer.engine.chain.ChainRun]]: the lazy chain, which keeps events rather than partial matches (for an
 *    OR of chains, one per alternative: [[io.sparkcer.engine.chain.Chains.newRun]]);
 *  - [[io.sparkcer.engine.chain.AdaptiveChainRun]]: the race between the lazy chain and the registers;
 *  - [[io.sparkcer.engine.pcea.PceaPartitionRun]]: equalities keyed by a PCEA.
 */
trait Run {
  /** Live nodes of its tECS (a metric; 0 for a run that keeps none). */
  def liveNodes: Int
  /** The deepest output chain of its tECS (a metric). */
  def maxOutputDepth: Int
  /**
   * Reads the event at `position`: its interned symbol, that symbol's guard bits, its window key, and key - window
   * (a run that started at or below it is out). Then enumerates the matches the event completes into `sink`, or
   * none when `sink` is null (an event read as context, whose matches someone else reports). Returns how many
   * matches the sink accepted.
   */
  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int
  /** Active states (a metric). */
  def activeStates: Int
  /** Drops the partial matches that started at or below `threshold`, as the next event's own threshold would. */
  def expire(threshold: Long): Unit
  /** Writes what the run needs to go on from the last event read in another process. */
  def save(out: DataOutput): Unit
  /** Makes this fresh run the one [[save]] wrote. */
  def load(in: DataInput): Unit
}
