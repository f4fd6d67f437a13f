import { ParentBasedSampler, TraceIdRatioBasedSampler, AlwaysOnSampler } from '@opentelemetry/sdk-trace';
import { startTracing, tracingSettings } from '@mp/telemetry';

describe('tracing settings: the standard OTEL_* variables', () => {
  it('is off without an endpoint, and when OTEL_SDK_DISABLED is true', async () => {
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    // off means nothing is registered
    expect(await startTracing('x', { env: {} })).toBeNull();
  });

  it('exports over http/protobuf by default, or http/json; the traces-only variables win', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })!.protocol).toBe('http/protobuf');
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })!.protocol).toBe(
      'http/json',
    );
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      })!.protocol,
    ).toBe('http/protobuf');
  });

  it('takes the samplers of the OTel specification, 10 % as parentbased_traceidratio with 0.1', () => {
    const s = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })!;
    expect(s.sampler).toBeInstanceOf(ParentBasedSampler);
    expect(s.sampler.toString()).toMatch(/TraceIdRatioBased\{0\.1\}/);
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })!.sampler,
    ).toBeInstanceOf(TraceIdRatioBasedSampler);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'always_on' })!.sampler).toBeInstanceOf(AlwaysOnSampler);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })!.samplerName).toBe('parentbased_always_on');
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
  ])('refuses %j naming %s', (env, setting) => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', ...env })).toThrow(
      expect.objectContaining({ setting, message: expect.stringMatching(new RegExp(`^${setting}: `)) }),
    );
  });
});
