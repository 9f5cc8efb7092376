namespace Encryption.Custom.Keys.Memory;

/// <summary>Receives an unmasked secret for the duration of a call; the span is wiped as soon as it returns.</summary>
internal delegate void SecretAction<TState>(ReadOnlySpan<byte> secret, ref TState state)
    where TState : allows ref struct;
