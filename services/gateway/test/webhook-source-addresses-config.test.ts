import { parseGatewayConfig } from '../src/config.js';

// MP_WEBHOOK_SOURCE_ADDRESSES: the addresses webhook deliveries leave from (ADR 0057). A wrong
// value stops the gateway at boot with the variable named, never a list that lies to receivers.
describe('MP_WEBHOOK_SOURCE_ADDRESSES', () => {
  it('is empty when unset', () => {
    expect(parseGatewayConfig({}).MP_WEBHOOK_SOURCE_ADDRESSES).toEqual([]);
  });

  it('takes addresses and CIDR blocks of both families, trimmed', () => {
    expect(parseGatewayConfig({ MP_WEBHOOK_SOURCE_ADDRESSES: ' 203.0.113.7, 198.51.100.0/24 ,2001:db8::/48,, ::1' }).MP_WEBHOOK_SOURCE_ADDRESSES).toEqual([
      '203.0.113.7',
      '198.51.100.0/24',
      '2001:db8::/48',
      '::1',
    ]);
  });

  it.each(['egress.example.com', '203.0.113.7/33', '2001:db8::/129', '203.0.113.7/24/1', '203.0.113.7/', '300.1.1.1'])(
    'refuses %s naming the variable',
    (value) => {
      expect(() => parseGatewayConfig({ MP_WEBHOOK_SOURCE_ADDRESSES: value })).toThrow(
        /MP_WEBHOOK_SOURCE_ADDRESSES: a comma-separated list of IP addresses or CIDR blocks/,
      );
    },
  );
});
