package io.sparkcer.engine.plan

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.{MaxCea, SubsetCea, SymbolTable}
import io.sparkcer.engine.ceql.Consumption
import io.sparkcer.engine.chain.{AdaptiveChainRun, ChainPath}
import io.sparkcer.engine.eval.{
  EventCodec, EventReader, EventRing, MatchBound, MatchOf, Partition, Partitions, Run, SavedState, SlidingWindow,
  TooManyMatchesException, Watermark
}
import io.sparkcer.engine.pcea.PceaPartitionRun
import io.sparkcer.engine.priority.{PriorityOrders, PriorityRun}
import io.sparkcer.engine.rma.{MaximalRegisterRun, RankedRegisterRun, RegisterMachine, RegisterRun}
import io.sparkcer.engine.tecs.{CeaRun, Enumerator, Tecs}

/**
 * The evaluation of a compiled pattern, for events given in stream order: each event is classified once against every
 * guard, routed to its partition, placed in the window, read by the partition's run (the one its [[Evaluation]] names:
 * [[CeaRun]], CORE's Algorithm 1; [[PriorityRun]], [[RegisterRun]], [[RankedRegisterRun]], [[MaximalRegisterRun]],
 * the lazy chain's, their race [[AdaptiveChainRun]], or [[PceaPartitionRun]]), and the matches it completes are
 * reported; then CONSUME BY applies.
 *
 * @param grouped the events arrive one partition after another (Spark sorts by the PARTITION BY keys): a new key
 *                means the previous partition is finished, so only one partition is ever held.
 * @param bound   the most matches one event may complete, and tECS nodes a partition may hold; past either,
 *                [[TooManyMatchesException]]
 */
final class PatternEvaluator[E <: AnyRef](pattern: CompiledPattern, reader: EventReader[E], grouped: Boolean,
    bound: MatchBound)
    extends Evaluator[E] {
  val metrics = new EvaluatorMetrics
  private val symbols = new SymbolTable(pattern.nfa.symbolWords)
  private val words = new Array[Long](pattern.nfa.symbolWords)
  private val ignoresUnguarded = pattern.ignoresUnguardedEvents

  private val enumerator = new Enumerator(metrics.work)

  /**
   * The runs of `evaluation`, one with no partial match over each partition's events, sharing what is built for the
   * pattern: the enumerator, the deterministic automaton (itself built as the stream asks), the priority orders of
   * NEXT and LAST and their steps, the CEA with registers (RMA).
   */
  private def runs(evaluation: Evaluation): EventRing[E] => Run = evaluation match {
    case Evaluation.Core(nfa) =>
      val cea = new SubsetCea(nfa)
      _ => new CeaRun(cea, enumerator, bound.nodes, metrics.work)
    case Evaluation.Maximal(nfa) =>
      val cea = new MaxCea(nfa)
      _ => new CeaRun(cea, enumerator, bound.nodes, metrics.work)
    case Evaluation.Priority(nfa, lastFirst) =>
      val orders = new PriorityOrders(nfa, lastFirst)
      _ => new PriorityRun(orders, nfa.stateCount, enumerator, bound.nodes, metrics.work)
    case Evaluation.Registers(nfa, program, kind, _, _) =>
      val machine = new RegisterMachine[E](new SubsetCea(nfa), program, reader, bound, metrics.work)
      kind match {
        case Evaluation.Registers.AllRuns => new RegisterRun(machine, _, enumerator, metrics.work)
        case Evaluation.Registers.Ranked(lastFirst) =>
          new RankedRegisterRun(machine, lastFirst, _, enumerator, metrics.work)
        case Evaluation.Registers.Maximal => new MaximalRegisterRun(machine, _, enumerator, metrics.work)
      }
    case Evaluation.LazyChain(_, chains, _, _) => chains.newRun(reader, _, metrics.work, bound)
    case Evaluation.Race(lazyChain, onRegisters) =>
      val (lazily, withRegisters) = (runs(lazyChain), runs(onRegisters))
      events =>
        new AdaptiveChainRun({
            case ChainPath.Lazy => lazily(events)
            case ChainPath.Registers => withRegisters(events)
          }, ChainPath.Lazy, metrics.work, metrics.chainDecisions)
    case Evaluation.Pcea(_, plan) => new PceaPartitionRun(plan, reader, _, metrics.work)
  }

  private val window = new SlidingWindow(pattern.analyzed.window, reader.windowUnitsPerMilli)
  private val partitions = new Partitions[E](reader, pattern.analyzed.partitionKeys.nonEmpty, grouped,
    runs(pattern.evaluation), evictsIdle = window.onColumn && pattern.forgetsIdlePartitions)
  private val watermark = new Watermark(partitions, window, pattern.forgetsIdlePartitions)
  private val reporter = new MatchReporter(pattern, reader, bound, metrics)

  def push(event: E, emit: MatchOf[E] => Unit): Unit = {
    metrics.events += 1
    if (window.onColumn && !reader.hasWindowKey(event)) { metrics.droppedNullKey += 1; return }
    if (!classified(event)) return
    val partition = partitions.of(event)
    if (partition == null) { metrics.droppedNullKey += 1; return }

    partition.position += 1
    val position = partition.position
    val key = if (window.onColumn) reader.windowKey(event) else position
    if (key < partition.lastKey)
      throw new IllegalArgumentException(
        s"events are out of stream order: window key $key after ${partition.lastKey} at $event; sort the input by the order column")
    partition.lastKey = key
    val threshold = window.threshold(key)
    partition.events.expire(threshold)
    partition.events.append(position, event, key)

    val sink = if (reader.isContext(event)) null else reporter.completedBy(partition, position, emit)
    val found =
      try partition.run.read(position, symbols.intern(words), words, key, threshold, sink)
      catch { case full: Tecs.Full => throw tooManyNodes(event, full.maxNodes) }
    record(partition)
    if (found > 0) consume(partition)
    partitions.evictIdle(threshold, metrics.events)
  }

  /**
   * Whether the event can change a match: false for one that satisfies no guard where the pattern passes such
   * events by ([[CompiledPattern.ignoresUnguardedEvents]]).
   */
  def reads(event: E): Boolean = !ignoresUnguarded || classified(event)

  /** Sets `words` to the event's guards; false when the event satisfies none and the pattern passes it by. */
  private def classified(event: E): Boolean = {
    java.util.Arrays.fill(words, 0L)
    reader.classify(event, words)
    if (!ignoresUnguarded) return true
    var w = 0
    while (w < words.length) { if (words(w) != 0L) return true; w += 1 }
    false
  }

  private def record(partition: Partition[E]): Unit = {
    metrics.peakActiveStates = math.max(metrics.peakActiveStates, partition.run.activeStates)
    metrics.peakLiveNodes = math.max(metrics.peakLiveNodes, partition.run.liveNodes)
    metrics.peakBufferedEvents = math.max(metrics.peakBufferedEvents, partition.events.size)
    metrics.peakPartitions = math.max(metrics.peakPartitions, partitions.count)
    metrics.maxOutputDepth = math.max(metrics.maxOutputDepth, partition.run.maxOutputDepth)
  }

  /** Past [[MatchBound.nodes]]: where, what keeps the partial matches apart, and what to write instead. */
  private def tooManyNodes(event: E, nodes: Int): TooManyMatchesException = {
    val why = pattern.registers.fold("the window holds too many events for them")(r =>
      s"its conditions (${pattern.nfa.conditions.map(_.text).mkString(", ")}) keep a run per distinct value of what " +
        s"they read: ${r.growth}; over consecutive events (':+') one per start")
    val remedies = pattern.registers.fold("")(r => if (r.perSubset.isEmpty) "" else s" ${RegisterMachine.remedies}.")
    new TooManyMatchesException(
      s"at the event at ${reader.describe(event)}, the partial matches of its partition hold more than $nodes tECS " +
        s"nodes (one per run and event of the window), the bound ${bound.nodesSetting}: $why.$remedies Shorten the " +
        "window (WITHIN), partition the stream (PARTITION BY), or read consecutive events with ':' and ':+' instead " +
        s"of ';' and '+'; or raise ${bound.nodesSetting}.")
  }

  /** Once an event has completed matches, CONSUME BY discards the partial matches of its partition, or of all. */
  private def consume(partition: Partition[E]): Unit = pattern.consumption match {
    case Consumption.Nothing => ()
    case Consumption.Partition => partitions.restart(partition)
    case Consumption.Any => partitions.restartAll()
  }

  def advanceTo(key: Long): Unit = watermark.advanceTo(key)
  def expiresAt: Option[Long] = watermark.expiresAt
  def isEmpty: Boolean = partitions.isEmpty
  def reset(): Unit = partitions.clear()
  def save(out: DataOutput, codec: EventCodec[E]): Unit = SavedState.save(partitions, out, codec)
  def load(in: DataInput, codec: EventCodec[E]): Unit = SavedState.load(partitions, in, codec)
}
