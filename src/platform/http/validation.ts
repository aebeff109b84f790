import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) =>
      // class-validator starts messages with the bare property name; name the full path instead.
      text.startsWith(`${error.property} `) ? `${path}${text.slice(error.property.length)}` : `${path}: ${text}`,
    );
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/** Strict: unknown fields are refused, types are converted only where a DTO says so, every message names its field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(flatten(errors).join('; ') || 'Invalid request'),
  });
}
