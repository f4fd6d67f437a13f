import { compileExpression, convertRaw, isExpressionProblem, MAX_EXPRESSION_LENGTH, type CompiledExpression } from '@mp/kit';

// The arithmetic of dated calibrations (ADR 0116) and derived channels (ADR 0117), against values
// computed by hand.
describe('calibration conversions', () => {
  it('linear: factor · raw + offset', () => {
    expect(convertRaw({ method: 'linear', factor: 0.05, offset: -10 }, 2500, undefined)).toBe(115);
    expect(convertRaw({ method: 'linear', factor: 0.2, offset: 0 }, 12, 20)).toBeCloseTo(2.4, 12);
  });

  it('polynomial: a · raw² + b · raw + c', () => {
    // 1e-5 · 9e6 + 0.02 · 3000 − 5 = 90 + 60 − 5
    expect(convertRaw({ method: 'polynomial', a: 1e-5, b: 0.02, c: -5 }, 3000, undefined)).toBeCloseTo(145, 9);
    expect(convertRaw({ method: 'polynomial', a: 0, b: 1, c: 0 }, -7, undefined)).toBe(-7);
  });

  it('vibrating wire: G · (f²/1000 − R₀), plus K · (T₁ − T₀) when K, T₀ and a temperature are there', () => {
    const vw = { method: 'vibrating_wire', gaugeFactor: -0.1482, zeroReading: 8012.4 };
    // 2650² / 1000 = 7022.5 digits; −0.1482 · (7022.5 − 8012.4) = −0.1482 · −989.9 = 146.70318 kPa
    expect(convertRaw(vw, 2650, 12)).toBeCloseTo(146.70318, 9);
    const withT = { ...vw, temperatureFactor: 0.0713, zeroTemperature: 21.3 };
    // + 0.0713 · (12 − 21.3) = −0.66309 → 146.04009 kPa
    expect(convertRaw(withT, 2650, 12)).toBeCloseTo(146.04009, 9);
    // no temperature in the reading: no correction
    expect(convertRaw(withT, 2650, undefined)).toBeCloseTo(146.70318, 9);
    // K without T₀ (the services refuse it): no correction either
    expect(convertRaw({ ...vw, temperatureFactor: 0.0713 }, 2650, 12)).toBeCloseTo(146.70318, 9);
  });

  it('answers undefined for a result that is not finite or an unknown method', () => {
    expect(convertRaw({ method: 'linear', factor: 1e308, offset: 0 }, 1e10, undefined)).toBeUndefined();
    expect(convertRaw({ method: 'cubic' }, 1, undefined)).toBeUndefined();
  });
});

describe('derived channel expressions', () => {
  const known = new Set(['pore_pressure', 'temperature', 'tilt_a', 'tilt_b']);
  const compile = (text: string): CompiledExpression => {
    const c = compileExpression(text, known);
    if (isExpressionProblem(c)) throw new Error(`${text}: ${c.problem}`);
    return c;
  };
  const problem = (text: string) => {
    const c = compileExpression(text, known);
    expect(isExpressionProblem(c)).toBe(true);
    return isExpressionProblem(c) ? c : null;
  };

  it('computes arithmetic with the usual precedence, ^ as a right-associative power', () => {
    expect(compile('1 + 2 * 3').evaluate({})).toBe(7);
    expect(compile('(1 + 2) * 3').evaluate({})).toBe(9);
    expect(compile('2 ^ 3 ^ 2').evaluate({})).toBe(512);
    expect(compile('2 * 3 ^ 2').evaluate({})).toBe(18);
    expect(compile('10 / 4 - 1').evaluate({})).toBe(1.5);
    expect(compile('-2 ^ 2').evaluate({})).toBe(4);
    expect(compile('-(2 ^ 2)').evaluate({})).toBe(-4);
    expect(compile('+3 - -2').evaluate({})).toBe(5);
    expect(compile('1e3 * 0.5').evaluate({})).toBe(500);
  });

  it('reads channels and calls abs, sqrt, min and max', () => {
    const resultant = compile('sqrt(tilt_a^2 + tilt_b^2)');
    expect(resultant.inputs.sort()).toEqual(['tilt_a', 'tilt_b']);
    expect(resultant.evaluate({ tilt_a: 3, tilt_b: -4 })).toBe(5);
    expect(compile('abs(tilt_b)').evaluate({ tilt_b: -4 })).toBe(4);
    expect(compile('min(tilt_a, tilt_b, 0)').evaluate({ tilt_a: 3, tilt_b: -4 })).toBe(-4);
    expect(compile('max(pore_pressure / 9.81, 0)').evaluate({ pore_pressure: 98.1 })).toBeCloseTo(10, 12);
  });

  it('leaves the value absent when an input is missing or the result is not finite', () => {
    expect(compile('pore_pressure + temperature').evaluate({ pore_pressure: 1 })).toBeUndefined();
    expect(compile('max(pore_pressure, temperature)').evaluate({ pore_pressure: 1 })).toBeUndefined();
    expect(compile('pore_pressure / 0').evaluate({ pore_pressure: 1 })).toBeUndefined();
    expect(compile('0 / 0').evaluate({})).toBeUndefined();
    expect(compile('sqrt(temperature)').evaluate({ temperature: -1 })).toBeUndefined();
    expect(compile('10 ^ 400').evaluate({})).toBeUndefined();
  });

  it('refuses everything but numbers, known channels, the operators and the four functions', () => {
    for (const text of [
      'process.exit(1)',
      'globalThis',
      'constructor',
      '__proto__',
      "require('fs')",
      'eval("1")',
      'Function("return 1")()',
      'pore_pressure.constructor',
      'pore_pressure["x"]',
      '"text"',
      'true',
      'null',
      'this',
      '[1, 2]',
      'pore_pressure > 1 ? 1 : 0',
      'pore_pressure % 2',
      'pore_pressure & 1',
      'pore_pressure == 1',
      '!pore_pressure',
      '~pore_pressure',
      'a = 1',
      'pore_pressure; 1',
      'sqrt(1, 2)',
      'min(1)',
      'hasOwnProperty(1)',
      'toString()',
      'abs',
      '(1 + ',
      '',
      '   ',
      'unknown * 2',
    ]) {
      const p = problem(text);
      expect(p?.suggestion).toMatch(/abs\(x\), sqrt\(x\), min/);
    }
  });

  it('bounds the length and the number of terms', () => {
    expect(problem('1'.repeat(MAX_EXPRESSION_LENGTH + 1))?.problem).toMatch(/at most 500/);
    expect(problem(Array(60).fill('1').join('+'))?.problem).toMatch(/more than 100 terms/);
    expect(compile(Array(50).fill('1').join('+')).evaluate({})).toBe(50);
    // deep nesting within the length bound parses and stays within the term bound
    expect(compile(`${'('.repeat(40)}1${')'.repeat(40)}`).evaluate({})).toBe(1);
  });
});
