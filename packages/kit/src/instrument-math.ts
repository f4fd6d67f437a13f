import jsep from 'jsep';

// Dated calibrations and derived channels of instrument points (docs/instruments.md, ADR 0116,
// ADR 0117): the arithmetic both the projects service (which validates a point's settings) and
// monitoring-data (which converts and computes at every write and recomputation) run. Pure
// functions, no I/O.

/** A calibration's coefficients, by method (docs/instruments.md#calibrations). */
export interface CalibrationCoefficients {
  method: string;
  factor?: number;
  offset?: number;
  a?: number;
  b?: number;
  c?: number;
  gaugeFactor?: number;
  zeroReading?: number;
  temperatureFactor?: number;
  zeroTemperature?: number;
}

/**
 * The measured value a calibration gives for a raw reading; `temperature` (°C) is the reading's
 * temperature channel, used by a vibrating-wire calibration with a temperature factor. Undefined
 * when the result is not a finite number (it is then left out, never stored as NaN).
 *
 * - linear: factor·raw + offset
 * - polynomial: a·raw² + b·raw + c
 * - vibrating_wire: G·(R₁ − R₀) + K·(T₁ − T₀), R₁ = f²/1000 digits of the frequency f in Hz; the
 *   temperature term only when K and T₀ are given and the reading holds a temperature.
 */
export function convertRaw(cal: CalibrationCoefficients, raw: number, temperature: number | undefined): number | undefined {
  let v: number;
  switch (cal.method) {
    case 'linear':
      v = (cal.factor ?? 1) * raw + (cal.offset ?? 0);
      break;
    case 'polynomial':
      v = (cal.a ?? 0) * raw * raw + (cal.b ?? 0) * raw + (cal.c ?? 0);
      break;
    case 'vibrating_wire': {
      const digits = (raw * raw) / 1000;
      v = (cal.gaugeFactor ?? 0) * (digits - (cal.zeroReading ?? 0));
      if (cal.temperatureFactor !== undefined && cal.zeroTemperature !== undefined && temperature !== undefined) {
        v += cal.temperatureFactor * (temperature - cal.zeroTemperature);
      }
      break;
    }
    default:
      return undefined;
  }
  return Number.isFinite(v) ? v : undefined;
}

/** The coefficients each method requires and accepts (snake_case, as the API names them). */
export const CALIBRATION_FIELDS: Readonly<Record<string, { required: readonly string[]; optional: readonly string[] }>> = {
  linear: { required: ['factor', 'offset'], optional: [] },
  polynomial: { required: ['a', 'b', 'c'], optional: [] },
  vibrating_wire: { required: ['gauge_factor', 'zero_reading'], optional: ['temperature_factor', 'zero_temperature'] },
};

/** Expressions of derived channels: at most this many characters… */
export const MAX_EXPRESSION_LENGTH = 500;
/** …and this many nodes of the parsed tree (numbers, names, operators, calls). */
export const MAX_EXPRESSION_NODES = 100;
/** Arguments of one min() or max(). */
const MAX_ARGUMENTS = 16;

/** The functions an expression may call, with their argument counts. */
const FUNCTIONS: Readonly<Record<string, { min: number; max: number; fn: (...a: number[]) => number }>> = {
  abs: { min: 1, max: 1, fn: Math.abs },
  sqrt: { min: 1, max: 1, fn: Math.sqrt },
  min: { min: 2, max: MAX_ARGUMENTS, fn: Math.min },
  max: { min: 2, max: MAX_ARGUMENTS, fn: Math.max },
};

// `^` is exponentiation here (right-associative, above × and ÷), not JavaScript's bitwise xor.
// jsep's table is global to the process; nothing else in the platform parses with jsep.
jsep.removeBinaryOp('^');
jsep.addBinaryOp('^', 11, true);

/** Values by channel name; an absent channel is undefined. */
export type ChannelValues = Readonly<Record<string, number | undefined>>;

export interface CompiledExpression {
  /** The channel names the expression reads. */
  inputs: string[];
  /** The value, or undefined when an input is absent or the result is not finite (÷ 0, √ of a negative). */
  evaluate(values: ChannelValues): number | undefined;
}

export interface ExpressionProblem {
  problem: string;
  suggestion: string;
}

type Node = jsep.Expression;
type Fn = (v: ChannelValues) => number;

const SUGGESTION =
  'Write arithmetic over the point’s channels and numbers: + - * / ^, parentheses, abs(x), sqrt(x), min(a, b, …), max(a, b, …); e.g. "(pore_pressure - 9.81 * 2.5) / 9.81".';

/**
 * Parses a derived channel's expression (jsep) and compiles it to closures over our own small
 * set of nodes: numbers, names of `known` channels, + − × ÷ ^, unary minus and plus, and the
 * calls abs, sqrt, min, max. Anything else (strings, members, other operators, unknown names or
 * functions) is a problem, as is a text over MAX_EXPRESSION_LENGTH or a tree over
 * MAX_EXPRESSION_NODES. Nothing is ever evaluated as JavaScript.
 */
export function compileExpression(text: string, known: ReadonlySet<string>): CompiledExpression | ExpressionProblem {
  if (typeof text !== 'string' || text.trim() === '') return { problem: 'The expression is empty.', suggestion: SUGGESTION };
  if (text.length > MAX_EXPRESSION_LENGTH) {
    return { problem: `The expression is ${text.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed.`, suggestion: SUGGESTION };
  }
  let tree: Node;
  try {
    tree = jsep(text);
  } catch (err) {
    return { problem: `The expression cannot be read: ${(err as Error).message.slice(0, 120)}.`, suggestion: SUGGESTION };
  }
  let nodes = 0;
  const inputs = new Set<string>();
  const fail = (problem: string): never => {
    throw new ExpressionError(problem);
  };
  const build = (n: Node): Fn => {
    if (++nodes > MAX_EXPRESSION_NODES) fail(`The expression has more than ${MAX_EXPRESSION_NODES} terms.`);
    switch (n.type) {
      case 'Literal': {
        const value = (n as jsep.Literal).value;
        if (typeof value !== 'number' || !Number.isFinite(value)) fail(`${String((n as jsep.Literal).raw).slice(0, 40)} is not a number.`);
        const c = value as number;
        return () => c;
      }
      case 'Identifier': {
        const name = (n as jsep.Identifier).name;
        if (!known.has(name)) fail(`${name.slice(0, 64)} is not a channel of the point (or a derived channel defined before this one).`);
        inputs.add(name);
        return (v) => v[name] ?? Number.NaN;
      }
      case 'UnaryExpression': {
        const u = n as jsep.UnaryExpression;
        const arg = build(u.argument);
        if (u.operator === '-') return (v) => -arg(v);
        if (u.operator === '+') return arg;
        return fail(`The operator ${u.operator} is not allowed.`);
      }
      case 'BinaryExpression': {
        const b = n as jsep.BinaryExpression;
        const l = build(b.left);
        const r = build(b.right);
        switch (b.operator) {
          case '+':
            return (v) => l(v) + r(v);
          case '-':
            return (v) => l(v) - r(v);
          case '*':
            return (v) => l(v) * r(v);
          case '/':
            return (v) => l(v) / r(v);
          case '^':
            return (v) => l(v) ** r(v);
          default:
            return fail(`The operator ${b.operator} is not allowed.`);
        }
      }
      case 'CallExpression': {
        const call = n as jsep.CallExpression;
        const name = call.callee.type === 'Identifier' ? (call.callee as jsep.Identifier).name : null;
        const f = name !== null && Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name]! : null;
        if (!f) return fail(`Only abs, sqrt, min and max can be called${name ? `; not ${name.slice(0, 64)}` : ''}.`);
        if (call.arguments.length < f.min || call.arguments.length > f.max) {
          fail(`${name} takes ${f.min === f.max ? f.min : `${f.min} to ${f.max}`} argument${f.max === 1 ? '' : 's'}; got ${call.arguments.length}.`);
        }
        const args = call.arguments.map(build);
        if (args.length === 1) {
          const [a] = args as [Fn];
          return (v) => f.fn(a(v));
        }
        return (v) => f.fn(...args.map((a) => a(v)));
      }
      default:
        return fail(`A ${n.type} is not allowed in an expression.`);
    }
  };
  let root: Fn;
  try {
    root = build(tree);
  } catch (err) {
    if (err instanceof ExpressionError) return { problem: err.message, suggestion: SUGGESTION };
    throw err;
  }
  return {
    inputs: [...inputs],
    evaluate: (values) => {
      const v = root(values);
      return Number.isFinite(v) ? v : undefined;
    },
  };
}

class ExpressionError extends Error {}

export const isExpressionProblem = (c: CompiledExpression | ExpressionProblem): c is ExpressionProblem => 'problem' in c;
