namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>Where the time-to-live tests' <c>FakeTimeProvider</c> starts (a fixed date, so failures reproduce).</summary>
internal static class TestClock
{
    public static readonly DateTimeOffset Start = new(2026, 11, 22, 8, 0, 0, TimeSpan.Zero);
}
