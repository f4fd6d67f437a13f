import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';

/** The standard OpenTelemetry variables this platform reads (names and values as the OTel spec has them). */
export interface TracingSettings {
  protocol: 'http/json' | 'http/protobuf';
  sampler: Sampler;
  samplerName: string;
}

type Env = Record<string, string | undefined>;

/** Thrown for a value the OTel variables do not allow; the message names the variable. */
export class TracingSettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

/**
 * Tracing is on only when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the
 * traces-only `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and `OTEL_SDK_DISABLED` is not `true`;
 * otherwise null, and nothing is loaded or patched.
 */
export function tracingSettings(env: Env = process.env): TracingSettings | null {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return null;
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  if (env.OTEL_TRACES_EXPORTER && !['otlp', ''].includes(env.OTEL_TRACES_EXPORTER)) {
    throw new TracingSettingError('OTEL_TRACES_EXPORTER', `only "otlp" is supported, not "${env.OTEL_TRACES_EXPORTER}".`);
  }
  const protocolSetting = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolSetting] || 'http/protobuf';
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new TracingSettingError(
      protocolSetting,
      `"${protocol}" is not supported; use http/protobuf (the default) or http/json (gRPC export is not included, ADR 0035).`,
    );
  }
  const samplerName = env.OTEL_TRACES_SAMPLER || 'parentbased_always_on';
  return { protocol, sampler: samplerOf(samplerName, env.OTEL_TRACES_SAMPLER_ARG), samplerName };
}

function ratioOf(arg: string | undefined): number {
  if (arg === undefined || arg === '') return 1;
  const n = Number(arg);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new TracingSettingError('OTEL_TRACES_SAMPLER_ARG', `"${arg}" is not a ratio between 0 and 1.`);
  return n;
}

function samplerOf(name: string, arg: string | undefined): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratioOf(arg));
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratioOf(arg)) });
    default:
      throw new TracingSettingError(
        'OTEL_TRACES_SAMPLER',
        `"${name}" is not supported; use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio.`,
      );
  }
}
