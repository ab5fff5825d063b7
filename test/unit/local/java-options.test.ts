import { describe, expect, it } from '@jest/globals';
import { DynamoDbLocalError, javaOptionsFrom } from '../../../local/dynamodb-local.js';

describe('DYNAMODB_LOCAL_JAVA_OPTIONS', () => {
  it('is no flag when absent or blank', () => {
    expect(javaOptionsFrom({})).toEqual([]);
    expect(javaOptionsFrom({ DYNAMODB_LOCAL_JAVA_OPTIONS: '  ' })).toEqual([]);
  });

  it('gives the JVM each flag, split on white space', () => {
    expect(javaOptionsFrom({ DYNAMODB_LOCAL_JAVA_OPTIONS: ' -XX:+UseSerialGC   -XX:TieredStopAtLevel=1 ' })).toEqual([
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
    ]);
  });

  it('refuses a word that is not a flag, naming the setting', () => {
    expect(() => javaOptionsFrom({ DYNAMODB_LOCAL_JAVA_OPTIONS: '-Xmx1g Main' })).toThrow(DynamoDbLocalError);
    expect(() => javaOptionsFrom({ DYNAMODB_LOCAL_JAVA_OPTIONS: '-Xmx1g Main' })).toThrow(/DYNAMODB_LOCAL_JAVA_OPTIONS: 'Main'/);
  });
});
