package io.sparkcer.spark

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.Dataset
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}

import io.sparkcer.engine.picture.AutomatonGraph
import io.sparkcer.spark.ceql.{CerMatch, CerRequest}
import io.sparkcer.spark.rowpattern.RowPatternRecognition

/**
 * `spark_cer.explain_pattern`: the automata a query runs on, as graphs to draw ([[AutomatonGraph]]). For a
 * query's text the answer comes with its validation ([[PatternValidation]], request field `"automaton": true`); for a
 * DataFrame, from the pattern operators of its plan, each with the metrics the Spark UI shows for it after the last
 * run of the DataFrame (or of any query with the same pattern), read from the UI's own store.
 */
object PatternPicture {
  private val json = new ObjectMapper()

  /** A graph as the JSON the Python package reads. */
  def toMap(graph: AutomatonGraph): Map[String, Any] = Map(
    "automaton" -> graph.automaton,
    "summary" -> graph.summary,
    "size" -> graph.size,
    "nodes" -> graph.nodes.map(n => Map("id" -> n.id, "label" -> n.label, "kind" -> n.kind)),
    "edges" -> graph.edges.map(e => Map("from" -> e.from, "to" -> e.to, "label" -> e.label, "kind" -> e.kind))
  )

  /**
   * The pattern operators of a DataFrame's plan, in plan order, as a JSON list of graphs, each with `"metrics"`:
   * `[name, value]` pairs as the SQL tab shows them, empty before a run.
   */
  def ofDataFrame(frame: Dataset[_]): String = {
    val ds = frame.asInstanceOf[ClassicDataset[_]]
    val patterns = ds.queryExecution.analyzed.collect {
      case m: CerMatch => (AutomatonGraph.of(m.pattern.compiled), s"query: ${CerRequest.oneLine(m.pattern.source)}")
      case r: RowPatternRecognition => (AutomatonGraph.of(r.pattern.analyzed), r.pattern.describe)
    }
    val answer = patterns.map { case (graph, mark) =>
      toMap(graph) + ("metrics" -> lastMetrics(ds, mark).map { case (k, v) => Seq(k, v) })
    }
    json.writeValueAsString(PatternValidation.toJava(answer))
  }

  /**
   * The metrics of the operator of the last execution whose description (what EXPLAIN prints of it) contains `mark`:
   * the pattern as the operator describes it, which every plan of the same query shares.
   */
  private def lastMetrics(ds: ClassicDataset[_], mark: String): Seq[(String, String)] = {
    val store = ds.sparkSession.sharedState.statusStore
    store.executionsList().sortBy(-_.executionId).iterator.flatMap { execution =>
      store.planGraph(execution.executionId).allNodes.find(_.desc.contains(mark)).map { n =>
        val values = store.executionMetrics(execution.executionId)
        n.metrics.flatMap(m => values.get(m.accumulatorId).map(m.name -> _)).toSeq
      }
    }.nextOption().getOrElse(Nil)
  }
}
