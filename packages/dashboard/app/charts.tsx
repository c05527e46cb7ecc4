/**
 * The charts: an account's balance over time with its postings, and payments by status and day. Drawn by uPlot
 * (bundled, nothing fetched): small (about 50 KB minified, no dependency), maintained, canvas-drawn, and it sets
 * its styles through the DOM, which a `default-src 'self'` Content-Security-Policy allows. Each chart has its
 * numbers beside it as text (the table it is drawn from).
 */
import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"

/** A chart that fills its box's width and follows it when the window is resized. */
const Plot = ({
  options,
  data,
  label
}: {
  readonly options: Omit<uPlot.Options, "width">
  readonly data: uPlot.AlignedData
  readonly label: string
}) => {
  const box = useRef<HTMLDivElement>(null)
  const latest = useRef(options)
  latest.current = options
  useEffect(() => {
    const options = latest.current
    const element = box.current
    if (element === null) return
    const plot = new uPlot({ ...options, width: Math.max(element.clientWidth, 280) }, data, element)
    const resized = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(element.clientWidth, 280), height: options.height })
    )
    resized.observe(element)
    return () => {
      resized.disconnect()
      plot.destroy()
    }
    // Drawn again when the numbers change, not on every render (the options are made anew each time).
  }, [JSON.stringify(data), label])
  return <div class="chart" ref={box} role="img" aria-label={label} />
}

// uPlot's builders are optional in its types (a build may leave them out); the bundled one has both.
const stepped = uPlot.paths.stepped!({ align: 1 })
const bars = uPlot.paths.bars!({ size: [0.6, 48] })

const css = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

const axis = (): uPlot.Axis => ({ stroke: css("--muted"), grid: { stroke: css("--line"), width: 1 } })

export interface BalancePoint {
  /** ISO time of the posting. */
  readonly at: string
  /** The balance after it, in major units. */
  readonly balance: number
}

/** The balance after each posting, as steps, each posting a point. */
export const BalanceChart = ({
  points,
  currency
}: {
  readonly points: ReadonlyArray<BalancePoint>
  readonly currency: string
}) => {
  const sorted = [...points].sort((a, b) => a.at.localeCompare(b.at))
  const data: uPlot.AlignedData = [sorted.map((p) => Date.parse(p.at) / 1000), sorted.map((p) => p.balance)]
  const options: Omit<uPlot.Options, "width"> = {
    height: 220,
    legend: { show: false },
    scales: { x: { time: true } },
    axes: [axis(), { ...axis(), size: 60 }],
    series: [
      {},
      {
        label: `Balance (${currency})`,
        stroke: css("--accent"),
        width: 2,
        paths: stepped,
        points: { show: true, size: 6, fill: css("--accent") }
      }
    ]
  }
  return (
    <Plot options={options} data={data} label={`The balance in ${currency} over time, ${sorted.length} postings`} />
  )
}

/** A colour per status, the badges' tones where they have one. */
const statusColours: Record<string, string> = {
  COMPLETED: "#1a7f37",
  SETTLED: "#2da44e",
  FAILED: "#cf222e",
  DECLINED: "#a40e26",
  EXPIRED: "#8c959f",
  PROCESSING: "#bf8700",
  PENDING: "#0969da",
  PENDING_AUTHORIZATION: "#54aeff",
  AUTHORIZED: "#8250df",
  PARTIALLY_SETTLED: "#c297ff",
  CREATED: "#6e7781"
}

const DAY = 86_400

export interface DayCount {
  readonly day: string
  readonly counts: Readonly<Record<string, number>>
}

/**
 * Transactions per day, a bar per day stacked by status. uPlot has no stacked bars of its own: each status is drawn
 * as the running total up to it, tallest first, so the shorter bars cover it.
 */
export const StatusByDayChart = ({
  days,
  statuses
}: {
  readonly days: ReadonlyArray<DayCount>
  readonly statuses: ReadonlyArray<string>
}) => {
  const xs = days.map((d) => Date.parse(`${d.day}T12:00:00Z`) / 1000)
  const totals = statuses.map((_, i) =>
    days.map((d) => statuses.slice(0, i + 1).reduce((n, s) => n + (d.counts[s] ?? 0), 0))
  )
  const order = statuses.map((_, i) => i).reverse()
  const options: Omit<uPlot.Options, "width"> = {
    height: 200,
    scales: {
      // Half a day either side, so one day is one bar and not a range of years.
      x: { time: true, range: (_u, min, max) => [min - DAY / 2, max + DAY / 2] },
      y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max))] }
    },
    axes: [
      {
        ...axis(),
        space: 60,
        incrs: [DAY],
        values: (_, ticks) => ticks.map((t) => new Date(t * 1000).toISOString().slice(0, 10))
      },
      { ...axis(), values: (_, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) }
    ],
    legend: { live: false },
    series: [
      {},
      ...order.map((i) => ({
        label: statuses[i]!,
        fill: statusColours[statuses[i]!] ?? "#6e7781",
        stroke: css("--bg"),
        width: 1,
        paths: bars,
        points: { show: false }
      }))
    ]
  }
  return (
    <Plot
      options={options}
      data={[xs, ...order.map((i) => totals[i]!)]}
      label={`Transactions by day and status over ${days.length} days`}
    />
  )
}
